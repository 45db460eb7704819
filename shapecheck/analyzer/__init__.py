"""The libcst front end: an abstract interpreter that feeds program syntax to the shape algebra."""
