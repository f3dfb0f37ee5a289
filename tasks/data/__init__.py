"""Data: the example schema, loaders, the construction pool, constructed examples,
decontamination and the DuckDB store."""
