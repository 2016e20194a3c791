"""Text embeddings: one interface, the packaged all-MiniLM-L6-v2 by default, cached by text."""
from scholarbench.embed.base import Embedder, CachedEmbedder, EmbedStats, label_similarity
from scholarbench.embed.minilm import MiniLMEncoder, default_embedder

__all__ = ["Embedder", "CachedEmbedder", "EmbedStats", "label_similarity", "MiniLMEncoder",
           "default_embedder"]
