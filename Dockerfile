# The AutoVerifier image for Prefect workers (construction rounds, evaluation): the checkout at
# /app, installed in editable mode, with the Prefect client the compose file's server matches.
FROM python:3.11-slim
ARG PREFECT_VERSION=3.9.1
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PREFECT_SERVER_ANALYTICS_ENABLED=false \
    AUTOVERIFIER_HOME=/app AUTOVERIFIER_SHARED=/shared
WORKDIR /app
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY verifier_runtime ./verifier_runtime
COPY autoverifier ./autoverifier
COPY flows ./flows
COPY tasks ./tasks
RUN pip install --no-cache-dir uv \
 && uv pip install --system --compile-bytecode -e '.[llm,construct,eval,scale]' "prefect==${PREFECT_VERSION}"
COPY configs ./configs
COPY prefect.yaml ./
COPY rulebank ./rulebank
