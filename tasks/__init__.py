"""Construction-pipeline steps: small pure functions, wrapped as Prefect tasks in ``flows/``."""
