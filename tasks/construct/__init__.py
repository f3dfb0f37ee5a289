"""A construction round's steps as pure functions: replay, residuals, features, embeddings,
clustering, drafting with the parametric templates, audit, validation and promotion.

``round`` strings them together over one in-memory round state; ``flows/construct.py``
wraps them in Prefect tasks.
"""
