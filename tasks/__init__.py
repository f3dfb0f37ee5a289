"""The construction pipeline and evaluation, as pure functions (Prefect tasks and flows live in ``flows/``).

- :mod:`tasks.data`: the example schema, loaders, the construction pool, constructed
  examples, decontamination and the DuckDB store;
- :mod:`tasks.construct`: a construction round's steps (replay, residuals, features,
  embeddings, clustering, drafting with the templates, audit, validation, promotion);
- :mod:`tasks.evaluate`: the evaluation runner, baselines, metrics and the HTML report.
"""
