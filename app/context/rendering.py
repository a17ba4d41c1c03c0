"""Identity and working memory as the text of their context sections."""

from pydantic import JsonValue


def _strings(value: JsonValue) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def identity_text(identity: dict[str, JsonValue]) -> str:
    """'Newton. Analytical, cautious.' plus the description and core rules."""
    name = identity.get("name")
    parts = [f"{name}." if isinstance(name, str) and name else ""]
    traits = _strings(identity.get("traits"))
    if traits:
        parts.append(", ".join(traits).capitalize() + ".")
    description = identity.get("description")
    if isinstance(description, str) and description:
        parts.append(description)
    text = " ".join(p for p in parts if p)
    rules = _strings(identity.get("core_rules"))
    if rules:
        text += "\nCore rules:\n" + "\n".join(f"- {rule}" for rule in rules)
    return text.strip()


def working_memory_text(working_memory: dict[str, JsonValue]) -> str:
    """The current task and the open threads."""
    task = working_memory.get("current_task")
    text = task if isinstance(task, str) else ""
    threads = _strings(working_memory.get("open_threads"))
    if threads:
        text += "\nOpen threads:\n" + "\n".join(f"- {thread}" for thread in threads)
    return text.strip()
