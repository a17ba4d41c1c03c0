"""The built-in frames: the ways of approaching an input that every agent has (seed 009).

Each says what to consider, which kinds of memory matter (priorities), its default budget, how
much recency counts, and how it is recognised: example inputs (compared by meaning) and cue
words. Agents override or extend them with custom frames (`frames.effective_frames`).
"""

from app.context.types import Frame


def _cues(listed: str) -> tuple[str, ...]:
    return tuple(listed.split(", "))


CONVERSATION = Frame(
    name="conversation",
    description="Conversational turn detected. Reply naturally and briefly; "
    "use what you know about the person.",
    questions=("What does this person care about?", "What did we talk about before?"),
    priorities={"fact": 1.0, "episode": 0.8, "decision": 0.3, "procedure": 0.2},
    default_budget=3000,
    recency=1.0,
    examples=(
        "hi there",
        "hello, how are you?",
        "good morning!",
        "thanks, that helped a lot",
        "hey, nice to talk to you again",
        "how was your weekend?",
        "I'm feeling a bit tired today",
        "have a great evening",
        "see you tomorrow",
    ),
    cues=_cues(
        "hi, hello, hey, thanks, thank you, how are you, good morning, good evening, "
        "good night, bye, see you"
    ),
)


QUESTION = Frame(
    name="question",
    description="Question detected. Answer from the facts and past events below; "
    "say so when they do not cover it.",
    questions=(
        "What exactly is being asked?",
        "Which facts or past events answer it?",
        "How recent and how certain is that answer?",
    ),
    priorities={"fact": 1.0, "episode": 0.9, "decision": 0.6, "procedure": 0.4},
    default_budget=6000,
    recency=0.2,
    examples=(
        "When did Melanie go camping?",
        "What is Tim's favourite programming language?",
        "Where does Caroline live?",
        "Who maintains the billing service?",
        "Why did we move off SQLite?",
        "How many users signed up last week?",
        "Did John finish the marathon?",
        "What did we discuss in the last meeting?",
        "Which database does the reporting job use?",
    ),
    cues=("what", "when", "where", "who", "why", "how", "did", "does", "is there", "?"),
)


TASK = Frame(
    name="task",
    description="Task detected. Follow the relevant procedures and past decisions "
    "below; say what you will do before doing it.",
    questions=(
        "What is the goal, and what does done look like?",
        "Which procedure applies?",
        "Which constraints or past decisions limit the approach?",
    ),
    priorities={"procedure": 1.0, "fact": 0.8, "decision": 0.6, "episode": 0.4},
    default_budget=8000,
    recency=0.6,
    examples=(
        "Implement a REST endpoint for user signup",
        "Write a migration that adds an index on orders.created_at",
        "Create a Dockerfile for the API service",
        "Deploy the worker to staging",
        "Add pagination to the search results",
        "Refactor the billing module",
        "Set up CI for the repository",
        "Build a CLI to import CSV files",
        "How do I rotate the database credentials?",
    ),
    cues=_cues(
        "implement, write, create, build, deploy, add, refactor, set up, migrate, "
        "configure, update, generate, how do i, how to"
    ),
)


DECISION = Frame(
    name="decision",
    description="Decision detected. Compare the alternatives against past decisions "
    "and their outcomes before recommending one.",
    questions=(
        "What are we optimizing for?",
        "What did we decide last time?",
        "What are the constraints?",
        "What are the alternatives?",
    ),
    priorities={"decision": 1.0, "procedure": 0.8, "fact": 0.6, "episode": 0.4},
    default_budget=12000,
    recency=0.5,
    examples=(
        "Should we use Postgres or MongoDB for this service?",
        "Which message queue should we choose, Kafka or RabbitMQ?",
        "Is it worth moving to Kubernetes?",
        "React versus Vue for the dashboard",
        "Should I accept the job offer or stay?",
        "What are the trade-offs of a monorepo?",
        "Do we build our own auth or buy a provider?",
        "Which option do you recommend for hosting?",
    ),
    cues=_cues(
        "should we, should i, which, choose, decide, versus, vs, trade-off, tradeoff, "
        "recommend, option, options, alternatives, pros and cons, worth it"
    ),
)


DEBUG = Frame(
    name="debug",
    description="Debugging detected. Check known fixes and past incidents below, "
    "reproduce the failure, then find the root cause.",
    questions=(
        "What changed since it last worked?",
        "Has this failure happened before?",
        "What is the smallest reproduction?",
        "Is this the root cause or a symptom?",
    ),
    priorities={"procedure": 1.0, "episode": 0.9, "fact": 0.7, "decision": 0.5},
    default_budget=10000,
    recency=1.0,
    examples=(
        "Traceback (most recent call last): ValueError in parser.py",
        "The deploy fails with exit code 137",
        "Tests crash with a segmentation fault",
        "Getting a 500 error from the orders endpoint",
        "NullPointerException when saving the form",
        "The worker keeps timing out",
        "Login is broken after the last release",
        "Memory leak in the ingestion job",
        "CI has been red since this morning",
    ),
    cues=_cues(
        "error, traceback, exception, fails, failing, failed, crash, crashes, crashed, "
        "bug, stack trace, broken, broke, timeout, not working, stopped working, "
        "doesn't work, regression, flaky, hangs"
    ),
)


BUILTIN_FRAMES: dict[str, Frame] = {
    CONVERSATION.name: CONVERSATION,
    QUESTION.name: QUESTION,
    TASK.name: TASK,
    DECISION.name: DECISION,
    DEBUG.name: DEBUG,
}
