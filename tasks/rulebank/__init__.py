"""The rule bank as reviewed source (``rulebank/modules/<id>/``), its lifecycle
(preview -> active -> retired), and the commands that test, build, diff and explain it."""
