"""The analyzer: an abstract interpreter of CPython's syntax tree that feeds programs to the shape algebra."""
