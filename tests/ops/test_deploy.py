"""The Grafana dashboard and the Prometheus alert rules in deploy/ use only series and labels
that the service's /metrics has."""

import json
import re
from pathlib import Path

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from app.core import metrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
DASHBOARD = DEPLOY / "grafana" / "context-engine.json"
ALERTS = DEPLOY / "prometheus" / "alerts.yml"

_SERIES = re.compile(r"\b(ce_[a-z0-9_]+)(\{[^}]*\})?")
_MATCHER = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)")
_GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
# What each family's samples are named on /metrics, by its type.
_SUFFIXES = {
    "counter": ("_total",),
    "gauge": ("",),
    "histogram": ("_bucket", "_sum", "_count"),
    "summary": ("_sum", "_count", ""),
}


def dashboard_queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]


def alert_rules() -> list[dict[str, object]]:
    document = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    return [rule for group in document["groups"] for rule in group["rules"]]


def label_names() -> dict[str, set[str]]:
    """Each series' labels, as the service declares them (histograms add `le`)."""
    found: dict[str, set[str]] = {}
    for value in vars(metrics).values():
        name = getattr(value, "_name", None)
        if not isinstance(name, str) or not name.startswith("ce_"):
            continue
        labels = set(getattr(value, "_labelnames", ()))
        kind = getattr(value, "_type", "")
        for suffix in _SUFFIXES.get(kind, ("",)):
            found[name + suffix] = labels | ({"le"} if suffix == "_bucket" else set())
    return found


async def exposed_series(client: httpx.AsyncClient) -> set[str]:
    """The sample names /metrics can show, from its families' types: a labelled family that has
    seen no value yet still lists its name and type."""
    text = (await client.get("/metrics")).text
    return {
        family.name + suffix
        for family in text_string_to_metric_families(text)
        for suffix in _SUFFIXES[family.type]
    }


@pytest.mark.parametrize(
    "query", [*dashboard_queries(), *(str(rule["expr"]) for rule in alert_rules())]
)
async def test_every_series_and_label_a_query_uses_exists(
    client: httpx.AsyncClient, query: str
) -> None:
    exposed, labels = await exposed_series(client), label_names()
    used = _SERIES.findall(query)
    assert used, f"no series of the service in {query!r}"
    allowed: set[str] = set()
    for name, selector in used:
        assert name in exposed, f"{name} is not on /metrics"
        allowed |= labels[name]
        for label in _MATCHER.findall(selector):
            assert label in labels[name], f"{name} has no label {label!r}"
    for grouping in _GROUPING.findall(query):
        for label in filter(None, (part.strip() for part in grouping.split(","))):
            assert label in allowed, f"no series in {query!r} has the label {label!r}"


def test_the_alerts_cover_what_an_operator_must_hear_about() -> None:
    rules = alert_rules()
    by_series = {name for rule in rules for name, _ in _SERIES.findall(str(rule["expr"]))}
    assert {
        "ce_database_up",
        "ce_http_requests_total",
        "ce_context_build_seconds_bucket",
        "ce_job_queue_lag_seconds",
        "ce_jobs_processed_total",
    } <= by_series
    for rule in rules:
        assert rule["labels"]["severity"] in {"warning", "critical"}  # type: ignore[index]
        assert rule["annotations"]["summary"]  # type: ignore[index]


def test_the_dashboard_shows_each_part_of_the_service() -> None:
    queries = " ".join(dashboard_queries())
    for series in (
        "ce_context_build_seconds_bucket",  # latency by stage
        "ce_context_build_seconds_count",  # builds/s
        "ce_context_budget_utilization_bucket",
        "ce_context_relevance_bucket",
        "ce_context_recall_precision_sum",
        "ce_context_refreshes_total",
        "ce_job_queue_depth",
        "ce_jobs_processed_total",
        "ce_memories_written_total",
    ):
        assert series in queries, series


def test_an_alert_fires_when_the_service_is_gone() -> None:
    """A failed scrape leaves no series, so a rule on a value never fires then: one on absence
    does."""
    [down] = [rule for rule in alert_rules() if str(rule["expr"]).startswith("absent(")]
    assert _SERIES.findall(str(down["expr"])) == [("ce_database_up", "")]
    assert 'or up{job="context-engine"} == 0' in str(down["expr"])  # one of several gone
    assert down["labels"]["severity"] == "critical"  # type: ignore[index]


def test_importing_the_dashboard_asks_for_its_prometheus() -> None:
    text = DASHBOARD.read_text(encoding="utf-8")
    dashboard = json.loads(text)
    [source] = dashboard["__inputs"]
    assert (source["type"], source["pluginId"]) == ("datasource", "prometheus")
    variable = dashboard["templating"]["list"][0]
    assert variable["current"]["value"] == "${" + source["name"] + "}"
    panels = [panel for panel in dashboard["panels"] if panel.get("targets")]
    for panel in panels:  # each panel and each of its queries read the chosen data source
        sources = [panel["datasource"], *(target["datasource"] for target in panel["targets"])]
        assert {source["uid"] for source in sources} == {"${datasource}"}, panel["title"]
