"""A seeded synthetic corpus of an engineering team's memories, of every kind, and its queries."""

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from pydantic import JsonValue

from bench.common.client import MemoryBody

REFERENCE_TIME = datetime(2026, 1, 1, tzinfo=UTC)
KIND_SHARES = {"decision": 0.15, "fact": 0.35, "procedure": 0.08, "episode": 0.40, "censor": 0.02}

COMPONENTS = (
    "billing service", "auth gateway", "search index", "payment queue", "profile API",
    "notification worker", "reporting pipeline", "session cache", "feature flag service",
    "image resizer", "export job", "rate limiter", "audit log", "checkout flow", "email sender",
    "webhook dispatcher", "inventory sync", "recommendation model", "metrics collector",
    "edge config", "mobile API", "admin dashboard", "warehouse loader", "geo lookup",
    "pricing engine", "ledger", "invoice generator", "SSO bridge", "chat backend", "file uploader",
    "order router", "fraud scorer", "tax calculator", "shipping estimator", "coupon engine",
    "translation service", "upload scanner", "backup job", "DNS config", "build farm",
)  # fmt: skip
TECHNOLOGIES = (
    "PostgreSQL", "Redis", "Kafka", "RabbitMQ", "Elasticsearch", "S3", "Kubernetes", "Terraform",
    "gRPC", "GraphQL", "Celery", "nginx", "Envoy", "ClickHouse", "DynamoDB", "SQLite",
    "Memcached", "Prometheus", "Grafana", "OpenTelemetry", "Airflow", "Spark", "Flink", "MongoDB",
    "Cassandra", "pgvector", "FastAPI", "Django", "Go", "Rust", "Node.js", "Temporal",
)  # fmt: skip
PEOPLE = (
    "Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hiro", "Ines", "Jonas", "Kira",
    "Luis", "Maya", "Nikhil", "Olga", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma",
    "Viktor", "Wen", "Yara", "Zoe",
)  # fmt: skip
PROBLEMS = (
    "latency spikes", "a memory leak", "connection pool exhaustion", "deadlocks", "slow queries",
    "a cache stampede", "disk pressure", "request timeouts", "duplicate messages", "stale reads",
    "an expired certificate", "OOM kills", "a retry storm", "schema drift", "hot partitions",
    "lock contention", "replication lag", "noisy neighbours", "slow cold starts",
    "a failed migration", "a full queue", "DNS resolution errors", "clock skew",
)  # fmt: skip
ACTIONS = (
    "migrate", "shard", "cache", "rate-limit", "batch", "index", "partition", "replicate",
    "compress", "deprecate", "rewrite", "monitor", "backfill", "roll back", "canary", "load-test",
    "profile", "vacuum", "autoscale", "pin", "upgrade", "restart", "drain", "rotate keys for",
)  # fmt: skip
METRICS = (
    "p95 latency", "error rate", "throughput", "CPU usage", "heap size", "queue depth",
    "cache hit ratio", "cost per request", "build time", "pages per week", "disk usage",
)  # fmt: skip
REGIONS = ("eu-west-1", "us-east-1", "us-west-2", "ap-south-1", "eu-central-1", "sa-east-1")
CUSTOMERS = ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell")


class CorpusGenerator:
    """Memories and queries from word lists and templates, reproducible from one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def _pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def _n(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def _when(self) -> str:
        offset = timedelta(minutes=self._n(0, 365 * 24 * 60))
        return (REFERENCE_TIME - offset).isoformat()

    def _sentence(self) -> str:
        c, t, p, person = (
            self._pick(COMPONENTS),
            self._pick(TECHNOLOGIES),
            self._pick(PROBLEMS),
            self._pick(PEOPLE),
        )
        m, a = self._pick(METRICS), self._pick(ACTIONS)
        templates = (
            f"{person} noticed {p} in the {c} after the {t} upgrade.",
            f"The {m} of the {c} went from {self._n(2, 90)} to {self._n(100, 900)} within "
            f"{self._n(2, 50)} minutes.",
            f"We decided to {a} the {c} and watch the {m} for a week.",
            f"{person} traced it to a misconfigured {t} client with a {self._n(1, 30)} s timeout.",
            f"Customers of {self._pick(CUSTOMERS)} in {self._pick(REGIONS)} saw errors for "
            f"{self._n(3, 120)} minutes.",
            f"The fix was to {a} the {c} and raise the pool size to {self._n(10, 200)}.",
            f"A follow-up ticket asks {person} to add an alert on the {m}.",
            f"{t} logs showed {p} starting at {self._n(0, 23):02d}:{self._n(0, 59):02d} UTC.",
            f"Rolling back the {c} deploy took {self._n(4, 45)} minutes and restored the {m}.",
            f"{person} and {self._pick(PEOPLE)} paired on the {c} runbook afterwards.",
        )
        return self.rng.choice(templates)

    def decision(self) -> MemoryBody:
        c, t = self._pick(COMPONENTS), self._pick(TECHNOLOGIES)
        body: MemoryBody = {
            "kind": "decision",
            "decision": self.rng.choice(
                (
                    f"Use {t} for the {c}",
                    f"{self._pick(ACTIONS).capitalize()} the {c} before the next release",
                    f"Move the {c} from {self._pick(TECHNOLOGIES)} to {t}",
                )
            ),
            "reasons": [
                self.rng.choice(
                    (
                        f"The {self._pick(METRICS)} dropped by {self._n(10, 80)}% in the trial",
                        f"{self._pick(PEOPLE)} already runs {t} in production",
                        f"It avoids the {self._pick(PROBLEMS)} we had last quarter",
                        f"One less system to back up and monitor for the {c}",
                        f"Cost falls to about ${self._n(100, 9000)} a month",
                    )
                )
                for _ in range(self._n(1, 4))
            ],
            "alternatives": list(
                dict.fromkeys(self._pick(TECHNOLOGIES) for _ in range(self._n(1, 3)))
            ),
            "confidence": round(self.rng.uniform(0.4, 0.95), 2),
            "occurred_at": self._when(),
        }
        if self.rng.random() < 0.5:
            body["context"] = " ".join(self._sentence() for _ in range(self._n(2, 4)))
        return body

    def fact(self) -> MemoryBody:
        c, t, person = self._pick(COMPONENTS), self._pick(TECHNOLOGIES), self._pick(PEOPLE)
        sentences = [
            f"The {c} runs on {t} {self._n(1, 16)}.{self._n(0, 9)} in {self._pick(REGIONS)}.",
            f"{person} owns the {c}; escalate to {self._pick(PEOPLE)} when {person} is away.",
            f"The {self._pick(METRICS)} of the {c} is about {self._n(2, 950)} on a normal day.",
            f"The {c} keeps its data for {self._n(7, 400)} days and is backed up nightly.",
            f"{self._pick(CUSTOMERS)} depends on the {c} for its {self._pick(COMPONENTS)}.",
        ]
        self.rng.shuffle(sentences)
        return {
            "kind": "fact",
            "content": " ".join(sentences[: self._n(1, 3)]),
            "confidence": round(self.rng.uniform(0.5, 1.0), 2),
            "occurred_at": self._when(),
        }

    def procedure(self) -> MemoryBody:
        c, a = self._pick(COMPONENTS), self._pick(ACTIONS)
        steps: list[JsonValue] = [
            self.rng.choice(
                (
                    f"Announce the change in #{c.split()[0]}-ops",
                    f"Check the {self._pick(METRICS)} dashboard for the {c}",
                    f"Run the {self._pick(TECHNOLOGIES)} health check",
                    f"Drain traffic from {self._pick(REGIONS)}",
                    f"Apply the change to {self._n(1, 10)}% of hosts first",
                    "Wait ten minutes and compare error rates",
                    f"Ask {self._pick(PEOPLE)} to review the diff",
                    "Record the outcome in the change log",
                )
            )
            for _ in range(self._n(3, 8))
        ]
        patterns: list[JsonValue] = [f"Never {a} the {c} during peak hours"]
        return {
            "kind": "procedure",
            "name": f"{a.capitalize()} the {c}",
            "description": f"How we {a} the {c} without downtime. " + self._sentence(),
            "steps": steps,
            "core_patterns": patterns[: self._n(0, 1)],
            "domain": self._pick(("ops", "data", "security", "release", "platform")),
            "occurred_at": self._when(),
        }

    def episode(self) -> MemoryBody:
        c, p = self._pick(COMPONENTS), self._pick(PROBLEMS)
        when = self._when()
        return {
            "kind": "episode",
            "title": f"{p.capitalize()} in the {c}",
            "detail": " ".join(self._sentence() for _ in range(self._n(3, 10))),
            "started_at": when,
            "occurred_at": when,
            "participants": list(dict.fromkeys(self._pick(PEOPLE) for _ in range(self._n(1, 3)))),
        }

    def censor(self) -> MemoryBody:
        c, a = self._pick(COMPONENTS), self._pick(ACTIONS)
        return {
            "kind": "censor",
            "trigger_pattern": f"{a} the {c} on a Friday",
            "reason": f"Last time it caused {self._pick(PROBLEMS)} over the weekend",
            "action": self.rng.choice(("warn", "block")),
            "domain": "release",
        }

    def memories(self, count: int) -> Iterator[MemoryBody]:
        """`count` memories with the kinds mixed in KIND_SHARES proportions."""
        kinds = list(KIND_SHARES)
        weights = list(KIND_SHARES.values())
        makers = {
            "decision": self.decision,
            "fact": self.fact,
            "procedure": self.procedure,
            "episode": self.episode,
            "censor": self.censor,
        }
        for kind in self.rng.choices(kinds, weights, k=count):
            yield makers[kind]()

    def queries(self, count: int) -> list[str]:
        """Inputs an agent of this team might build a context for."""
        result = []
        for _ in range(count):
            c, t, p = self._pick(COMPONENTS), self._pick(TECHNOLOGIES), self._pick(PROBLEMS)
            result.append(
                self.rng.choice(
                    (
                        f"What did we decide about {t} for the {c}?",
                        f"How do I {self._pick(ACTIONS)} the {c} safely?",
                        f"Why does the {c} have {p} again?",
                        f"Who owns the {c} and what runs it?",
                        f"The {c} shows {p} since this morning; what happened last time?",
                        f"Should we move the {c} to {t}?",
                        f"Write a plan to reduce the {self._pick(METRICS)} of the {c}.",
                    )
                )
            )
        return result
