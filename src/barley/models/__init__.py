"""Models: the file format (:mod:`~barley.models.archive`), the checks of what a file holds before
anything is built from it (:mod:`~barley.models.check`), the models that ship in this folder
(:mod:`~barley.models.shipped`), the catalog of shipped and installed models
(:mod:`~barley.models.catalog`) and model packages (:mod:`~barley.models.package`)."""
