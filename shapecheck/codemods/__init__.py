"""Codemods: `shapecheck annotate` writes inferred types, `shapecheck migrate` moves programs off xmap.

`annotations.annotation_for` gives the annotation text for an inferred type and the import it
needs, for any front end that inserts annotations.
"""
