//! Postprocessors (Unitxt's `processors.py` and the catalog's `processors/` folder): operators
//! applied to the `prediction` and `references` fields before metrics.
