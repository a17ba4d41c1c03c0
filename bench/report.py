"""`python -m bench report`: the tables and charts again from bench/results/*.json, without
running anything."""

from pydantic import TypeAdapter

from bench.agent import tables as agent_tables
from bench.agent.chart import agent_chart
from bench.common.results import RESULTS_DIR
from bench.conversation import results as conversation_results
from bench.conversation import tables as conversation_tables
from bench.conversation.chart import conversation_chart
from bench.quality import tables as quality_tables
from bench.quality.chart import quality_chart
from bench.speed import tables as speed_tables
from bench.speed.chart import speed_chart
from bench.speed.results import SpeedResult


def rerender() -> None:
    """Print the tables of the saved results and redraw their charts."""
    quality_path = RESULTS_DIR / "quality.json"
    if quality_path.exists():
        quality = TypeAdapter(quality_tables.QualityResult).validate_json(quality_path.read_bytes())
        print(f"Quality ({quality.run.get('date')}, commit {quality.run.get('commit')})\n")
        print(quality_tables.tables(quality))
        quality_chart(quality, RESULTS_DIR / "quality.png")
    speed_path = RESULTS_DIR / "speed.json"
    if speed_path.exists():
        speed = TypeAdapter(SpeedResult).validate_json(speed_path.read_bytes())
        print(f"\nSpeed ({speed.run.get('date')}, commit {speed.run.get('commit')})\n")
        print(speed_tables.tables(speed))
        speed_chart(speed, RESULTS_DIR / "speed.png")
    agent_path = RESULTS_DIR / "agent.json"
    if agent_path.exists():
        typed = TypeAdapter(agent_tables.AgentResult).validate_json(agent_path.read_bytes())
        print(f"\nTyped memory ({typed.run.get('date')}, commit {typed.run.get('commit')})\n")
        print(agent_tables.tables(typed))
        agent_chart(typed, RESULTS_DIR / "agent.png")
    conversation_path = RESULTS_DIR / "conversation.json"
    if conversation_path.exists():
        talk = TypeAdapter(conversation_results.ConversationResult).validate_json(
            conversation_path.read_bytes()
        )
        print(f"\nConversations ({talk.run.get('date')}, commit {talk.run.get('commit')})\n")
        print(conversation_tables.tables(talk))
        conversation_chart(talk, RESULTS_DIR / "conversation.png")
