"""Fifty memories of each kind about an agent's other concerns: ten hobbies and errands, five
memories of each kind apiece, none of them about storage, caching or infrastructure."""

from typing import Any

# (place, first thing, second thing, person, activity)
TOPICS = [
    ("the community garden", "raised beds", "tomato seedlings", "Maria", "watering"),
    ("the choir hall", "sheet music", "alto parts", "Jonas", "rehearsal"),
    ("the bakery", "sourdough starter", "rye flour", "Priya", "baking"),
    ("the cycling club", "road bikes", "inner tubes", "Omar", "the Sunday ride"),
    ("the family trip to Lisbon", "train tickets", "hotel rooms", "Rosa", "sightseeing"),
    ("the home aquarium", "water filter", "neon tetras", "Lena", "feeding"),
    ("the chess club", "tournament boards", "opening notes", "Viktor", "practice games"),
    ("the pottery studio", "glaze buckets", "clay bags", "Aiko", "kiln firing"),
    ("the marathon plan", "trail shoes", "energy gels", "Sam", "long runs"),
    ("the wedding reception", "flower arrangements", "table plans", "Ines", "the first dance"),
]


def distractors() -> list[dict[str, Any]]:
    """250 memory bodies: 50 decisions, facts, procedures, episodes and censors."""
    bodies: list[dict[str, Any]] = []
    for n, (place, first, second, person, activity) in enumerate(TOPICS):
        bodies += _decisions(place, first, second, person, activity)
        bodies += [
            {"kind": "fact", "content": f"{person} keeps the spare key to {place}."},
            {"kind": "fact", "content": f"The {first} for {place} cost {40 + n} euros in May."},
            {"kind": "fact", "content": f"{activity.capitalize()} at {place} starts at {n} pm."},
            {"kind": "fact", "content": f"{person} owns {n + 2} sets of {second}."},
            {"kind": "fact", "content": f"{place.capitalize()} is closed on the {n + 1}th."},
        ]
        bodies += [
            {
                "kind": "procedure",
                "name": f"{name} for {place}",
                "description": f"How {person} handles the {thing} at {place}.",
                "core_patterns": [f"Check the {thing} first", f"Tell {person} when done"],
            }
            for name, thing in [
                ("Opening", first),
                ("Closing", second),
                (f"{activity.capitalize()} routine", first),
                ("Restocking", second),
                ("Cleaning", first),
            ]
        ]
        bodies += [
            {
                "kind": "episode",
                "title": f"{title} ({place})",
                "detail": detail,
                "participants": [person],
                "started_at": f"2025-{month:02d}-{10 + n:02d}T09:00:00Z",
            }
            for month, (title, detail) in enumerate(
                [
                    ("Spring planning", f"{person} and I planned {activity} for the season."),
                    ("A lost item", f"The {second} went missing and turned up a week later."),
                    ("A good day", f"{activity.capitalize()} went well; {person} was happy."),
                    ("Price check", f"We compared prices of {first} in three shops."),
                    ("A rainy week", f"Rain cancelled {activity} twice; we met indoors."),
                ],
                start=2,
            )
        ]
        bodies += [
            {"kind": "censor", "trigger_pattern": pattern, "reason": reason, "action": action}
            for pattern, reason, action in [
                (f"Don't leave {place} unlocked", f"{person} asked for it", "block"),
                (f"Don't throw away the old {second}", "they are still useful", "warn"),
                (f"Don't book {activity} on public holidays", "nobody comes", "warn"),
                (f"Don't lend the {first} to strangers", "they came back broken", "block"),
                (f"Don't change {person}'s plans without asking", "it upset them", "warn"),
            ]
        ]
    return bodies


def _decisions(place: str, first: str, second: str, person: str, activity: str) -> list[Any]:
    return [
        {"kind": "decision", "decision": decision, "reasons": [reason], "confidence": 0.7}
        for decision, reason in [
            (f"Bought the {first} for {place} at the local market", "Cheaper than online."),
            (f"Moved {activity} at {place} to Saturday mornings", "More people can come."),
            (f"Asked {person} to look after the {second}", f"{person} knows them best."),
            (f"Skipped new {second} this season", "The old ones are still fine."),
            (f"Split the {first} money into two halves", "Spending stays visible."),
        ]
    ]
