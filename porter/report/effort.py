"""Effort estimate: how much of the port is done automatically, and how much work is left.

Per file and overall:
- `converted_share`: the CUDA API references porter converts (or, in `check`, would convert)
  divided by all CUDA API references it found: converted + left unconverted (PT001) +
  unsupported on HIP (PT002). None when the file has no CUDA API reference.
- `manual`: none / low / medium / high, from the open findings (fixed ones are done): each error
  weighs 3 points, each warning 1, info 0.
  A file: 0 points none, 1-5 low, 6-20 medium, more high.
  Overall: 0 points none, 1-15 low, 16-60 medium, more high.
The weights say that an error (wrong results or no build on AMD) costs about three warnings'
work (a performance or version risk); the thresholds are meant to sort files and projects, not
to predict hours.
"""

from __future__ import annotations

from dataclasses import dataclass, field

POINTS = {"error": 3, "warning": 1, "info": 0}
FILE_LEVELS = ((0, "none"), (5, "low"), (20, "medium"))
OVERALL_LEVELS = ((0, "none"), (15, "low"), (60, "medium"))


def level(points: int, levels=FILE_LEVELS) -> str:
    for limit, name in levels:
        if points <= limit:
            return name
    return "high"


@dataclass
class Effort:
    converted: int = 0
    remaining: int = 0  # unconverted + unsupported references
    points: int = 0

    @property
    def share(self) -> float | None:
        total = self.converted + self.remaining
        return round(self.converted / total, 4) if total else None

    def as_dict(self, levels) -> dict:
        return {
            "converted_share": self.share,
            "converted": self.converted,
            "remaining": self.remaining,
            "points": self.points,
            "manual": level(self.points, levels),
        }


@dataclass
class Estimate:
    files: dict[str, Effort] = field(default_factory=dict)
    total: Effort = field(default_factory=Effort)

    def file_dict(self, rel: str) -> dict:
        return self.files.get(rel, Effort()).as_dict(FILE_LEVELS)

    def overall_dict(self) -> dict:
        return self.total.as_dict(OVERALL_LEVELS)


def estimate(report) -> Estimate:
    est = Estimate()
    for r in report.results:
        e = Effort(
            converted=sum(r.stats.converted.values()),
            remaining=r.stats.unconverted + sum(r.stats.unsupported.values()),
        )
        for f in r.findings:
            if not f.extra.get("fixed"):
                e.points += POINTS[str(f.severity)]
        est.files[r.rel] = e
        est.total.converted += e.converted
        est.total.remaining += e.remaining
        est.total.points += e.points
    return est
