"""Prefect flows: construction rounds and evaluation."""
