"""Local stand-ins for external services, for tests that must not touch the network."""

from .llm_server import FakeLLMServer, scripted_reply

__all__ = ["FakeLLMServer", "scripted_reply"]
