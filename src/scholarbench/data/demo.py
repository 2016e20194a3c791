"""A small demo set the project writes itself, for machines with no benchmark data installed.

Three hand-made taxonomies over well-known papers (titles are the papers' real titles; the
one-line abstracts are our own summaries), in TaxoBench's upstream instance format, plus
distractor papers for the Deep Research corpus. It exercises every code path; its numbers say
nothing about any agent's quality.
"""
from __future__ import annotations

import json
from pathlib import Path

P = tuple[str, str]

_RAG: dict = {"name": "A Survey of Retrieval-Augmented Generation", "subtopics": [
    {"name": "Retrievers", "subtopics": [
        {"name": "Dense Retrieval", "papers": [
            ("Dense Passage Retrieval for Open-Domain Question Answering",
             "Dual-encoder dense retrieval of passages outperforms BM25 for open-domain question answering."),
            ("ColBERT: Efficient and Effective Passage Search via Contextualized Late Interaction over BERT",
             "Late interaction over token embeddings gives efficient and effective passage search."),
            ("Unsupervised Dense Information Retrieval with Contrastive Learning",
             "Contrastive pre-training produces dense retrievers without supervision.")]},
        {"name": "Sparse Retrieval", "papers": [
            ("SPLADE: Sparse Lexical and Expansion Model for First Stage Ranking",
             "Learned sparse lexical representations with term expansion for first-stage ranking."),
            ("The Probabilistic Relevance Framework: BM25 and Beyond",
             "The probabilistic relevance framework and the BM25 ranking function.")]}]},
    {"name": "Generation with Retrieval", "papers": [
        ("Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
         "A generator conditioned on retrieved passages for knowledge-intensive language tasks."),
        ("REALM: Retrieval-Augmented Language Model Pre-Training",
         "Language model pre-training with a latent knowledge retriever."),
        ("Improving Language Models by Retrieving from Trillions of Tokens",
         "Retrieval from a trillion-token database improves language modelling."),
        ("Self-RAG: Learning to Retrieve, Generate, and Critique through Self-Reflection",
         "A language model learns when to retrieve and critiques its own generations.")]},
    {"name": "Evaluation", "papers": [
        ("RAGAS: Automated Evaluation of Retrieval Augmented Generation",
         "Reference-free metrics for evaluating retrieval-augmented generation pipelines."),
        ("Benchmarking Large Language Models in Retrieval-Augmented Generation",
         "A benchmark of noise robustness, negative rejection and integration in RAG.")]}]}

_AGENTS: dict = {"name": "A Survey on Large Language Model based Autonomous Agents", "subtopics": [
    {"name": "Reasoning and Planning", "papers": [
        ("Chain-of-Thought Prompting Elicits Reasoning in Large Language Models",
         "Prompting with intermediate reasoning steps improves multi-step reasoning."),
        ("ReAct: Synergizing Reasoning and Acting in Language Models",
         "Interleaving reasoning traces and actions lets language models solve interactive tasks."),
        ("Tree of Thoughts: Deliberate Problem Solving with Large Language Models",
         "Search over a tree of intermediate thoughts for deliberate problem solving.")]},
    {"name": "Tool Use", "papers": [
        ("Toolformer: Language Models Can Teach Themselves to Use Tools",
         "A language model learns in a self-supervised way to call external tool APIs."),
        ("Gorilla: Large Language Model Connected with Massive APIs",
         "Fine-tuning a model to write accurate API calls across thousands of APIs."),
        ("HuggingGPT: Solving AI Tasks with ChatGPT and its Friends in Hugging Face",
         "A language model controller plans tasks and dispatches them to expert models.")]},
    {"name": "Memory and Reflection", "papers": [
        ("Reflexion: Language Agents with Verbal Reinforcement Learning",
         "Agents improve through verbal self-reflection stored in an episodic memory."),
        ("Generative Agents: Interactive Simulacra of Human Behavior",
         "Agents with memory streams, reflection and planning simulate believable behaviour."),
        ("MemGPT: Towards LLMs as Operating Systems",
         "Virtual context management gives language models a hierarchical memory.")]},
    {"name": "Multi-Agent Collaboration", "papers": [
        ("AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation",
         "A framework for applications built from conversing, customisable agents."),
        ("CAMEL: Communicative Agents for \"Mind\" Exploration of Large Language Model Society",
         "Role-playing agents cooperate through inception prompting.")]}]}

_ALIGN: dict = {"name": "A Survey of Alignment for Large Language Models", "subtopics": [
    {"name": "Learning from Feedback", "subtopics": [
        {"name": "Reinforcement Learning from Human Feedback", "papers": [
            ("Training language models to follow instructions with human feedback",
             "Fine-tuning with human preference feedback via reinforcement learning aligns models with intent."),
            ("Deep Reinforcement Learning from Human Preferences",
             "Learning reward functions from human comparisons of trajectory segments."),
            ("Proximal Policy Optimization Algorithms",
             "A clipped surrogate objective for stable policy-gradient optimisation.")]},
        {"name": "Direct Preference Optimization", "papers": [
            ("Direct Preference Optimization: Your Language Model is Secretly a Reward Model",
             "Preference optimisation with a classification loss and no explicit reward model."),
            ("KTO: Model Alignment as Prospect Theoretic Optimization",
             "Alignment from binary desirable or undesirable signals using prospect theory.")]}]},
    {"name": "AI Feedback and Principles", "papers": [
        ("Constitutional AI: Harmlessness from AI Feedback",
         "A model critiques and revises its outputs against a set of principles."),
        ("RLAIF: Scaling Reinforcement Learning from Human Feedback with AI Feedback",
         "Preference labels from a language model replace human labels.")]},
    {"name": "Safety Evaluation", "papers": [
        ("Red Teaming Language Models with Language Models",
         "Language models generate test cases that expose harmful behaviour of other models."),
        ("TruthfulQA: Measuring How Models Mimic Human Falsehoods",
         "A benchmark of questions that humans often answer falsely.")]}]}

DISTRACTORS: tuple[P, ...] = (
    ("Attention Is All You Need", "The Transformer architecture based solely on attention."),
    ("BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
     "Bidirectional encoder pre-training with masked language modelling."),
    ("Language Models are Few-Shot Learners", "A 175B-parameter model learns tasks from a few examples in context."),
    ("Deep Residual Learning for Image Recognition", "Residual connections make very deep networks trainable."),
    ("Adam: A Method for Stochastic Optimization", "Adaptive moment estimation for stochastic gradient descent."),
    ("An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale",
     "Vision transformers on sequences of image patches."),
    ("Scaling Laws for Neural Language Models", "Loss scales as a power law in model size, data and compute."),
    ("LoRA: Low-Rank Adaptation of Large Language Models", "Low-rank update matrices for parameter-efficient fine-tuning."),
    ("Graph Attention Networks", "Masked self-attention over graph neighbourhoods."),
    ("Denoising Diffusion Probabilistic Models", "High-quality image synthesis with diffusion probabilistic models."),
    ("Learning Transferable Visual Models From Natural Language Supervision",
     "Contrastive image-text pre-training for zero-shot transfer."),
    ("Efficient Estimation of Word Representations in Vector Space", "Skip-gram and CBOW word vectors."),
)

INSTANCES = ((1, _RAG), (2, _AGENTS), (3, _ALIGN))


def _strip(node: dict, pdfs: list[dict]) -> dict:
    out: dict = {"name": node["name"]}
    if "subtopics" in node:
        out["subtopics"] = [_strip(c, pdfs) for c in node["subtopics"]]
    if "papers" in node:
        out["papers"] = [title for title, _ in node["papers"]]
        pdfs.extend({"title": t, "abs": a} for t, a in node["papers"])
    return out


def demo_records() -> list[dict]:
    records = []
    for ident, tree in INSTANCES:
        pdfs: list[dict] = []
        gt = _strip(tree, pdfs)
        records.append({"id": ident, "survey": tree["name"], "survey_topic": tree["name"],
                        "pdfs": pdfs, "gt_paper_count": len(pdfs), "gt": gt})
    return records


def write_demo(folder: Path) -> tuple[Path, Path]:
    """Write the demo instances and the distractor list; returns (instances, distractors)."""
    folder.mkdir(parents=True, exist_ok=True)
    instances = folder / "demo_instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in demo_records()), encoding="utf-8")
    distractors = folder / "demo_distractors.jsonl"
    distractors.write_text("".join(json.dumps({"title": t, "abstract": a}) + "\n"
                                   for t, a in DISTRACTORS), encoding="utf-8")
    return instances, distractors
