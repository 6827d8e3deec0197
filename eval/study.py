"""The blind preference study's statistics (the proFILL paper's 48-student study: 85.3% non-tie
wins, a two-sided binomial test; its Figure 3): per-question vote splits, the non-tie win rate
(proFILL wins / (wins + losses)), an exact two-sided binomial test against p = 0.5, the tables the
`preference_study` asset writes, the Figure 3-style chart as a self-contained SVG, and the study's
section of the evaluation report.

The votes are the "votes" records `/study` appends (serving/api/study.py; advisor/usage/logfiles.py).
A participant may change a vote: the last one per participant and question counts (records in the
order of their day and hour, then as read).
"""

from __future__ import annotations

import html
import io
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from math import comb
from pathlib import Path

import duckdb

PROFILL, BASELINE, TIE = "profill", "baseline", "tie"
WINNERS = (PROFILL, TIE, BASELINE)
CHART_FILE = "preference_study.svg"
QUESTIONS_TABLE, OVERALL_TABLE = "preference_study_questions", "preference_study"
NO_VOTES = "no votes yet: enable the study (the institution config's study section) and share /study"

DDL = f"""
CREATE TABLE IF NOT EXISTS {QUESTIONS_TABLE} (   -- one row per study question with votes, per run
    run_id         VARCHAR NOT NULL,
    study_id       VARCHAR NOT NULL,
    votes          INTEGER NOT NULL,   -- the last vote of each participant on this question
    profill_wins   INTEGER NOT NULL,
    ties           INTEGER NOT NULL,
    baseline_wins  INTEGER NOT NULL,
    win_rate       DOUBLE,             -- profill_wins / (profill_wins + baseline_wins); NULL without a non-tie vote
    p_value        DOUBLE NOT NULL     -- exact two-sided binomial test of the non-tie votes against p = 0.5
);
CREATE TABLE IF NOT EXISTS {OVERALL_TABLE} (   -- one row per run: every question's votes together
    run_id         VARCHAR NOT NULL,
    questions      INTEGER NOT NULL,
    participants   INTEGER NOT NULL,
    votes          INTEGER NOT NULL,
    profill_wins   INTEGER NOT NULL,
    ties           INTEGER NOT NULL,
    baseline_wins  INTEGER NOT NULL,
    win_rate       DOUBLE,
    p_value        DOUBLE NOT NULL
);
"""


def binomial_test(k: int, n: int) -> float:
    """The exact two-sided binomial test of k successes in n trials against p = 0.5: the probability
    of every outcome no more likely than the observed one (scipy.stats.binomtest's definition).
    With p = 0.5 each outcome's probability is comb(n, i) / 2**n, so the sum is exact in integers."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    observed = comb(n, k)
    at_most, c = 0, 1  # c = comb(n, i), updated in exact integers
    for i in range(n + 1):
        if c <= observed:
            at_most += c
        c = c * (n - i) // (i + 1)
    return min(1.0, float(Fraction(at_most, 2 ** n)))


def last_votes(records: Iterable[Mapping]) -> list[dict]:
    """One vote per participant and question: the last one (by day and hour, then as read)."""
    ordered = sorted(enumerate(records), key=lambda pair: (str(pair[1].get("day", "")),
                                                           str(pair[1].get("hour", "")), pair[0]))
    latest: dict[tuple, dict] = {}
    for _, record in ordered:
        if record.get("winner") in WINNERS and record.get("study_id") and record.get("participant"):
            latest[(record["participant"], record["study_id"])] = dict(record)
    return list(latest.values())


def _split(votes: Sequence[Mapping]) -> dict:
    wins = sum(v["winner"] == PROFILL for v in votes)
    losses = sum(v["winner"] == BASELINE for v in votes)
    return {"votes": len(votes), "profill_wins": wins, "ties": len(votes) - wins - losses, "baseline_wins": losses,
            "win_rate": wins / (wins + losses) if wins + losses else None,
            "p_value": binomial_test(wins, wins + losses)}


def study_tables(records: Iterable[Mapping], order: Sequence[str] = ()) -> tuple[list[dict], dict]:
    """(per-question rows, the overall row) from the vote records. Questions in `order` first (the
    config's order), then any other question with votes (one removed from the config since)."""
    votes = last_votes(records)
    ids = list(dict.fromkeys([*(i for i in order if any(v["study_id"] == i for v in votes)),
                              *sorted({v["study_id"] for v in votes})]))
    questions = [{"study_id": i, **_split([v for v in votes if v["study_id"] == i])} for i in ids]
    overall = {"questions": len(ids), "participants": len({v["participant"] for v in votes}), **_split(votes)}
    return questions, overall


def write_tables(con: duckdb.DuckDBPyConnection, run_id: str, questions: Sequence[Mapping],
                 overall: Mapping) -> None:
    """This run's rows (earlier runs' rows stay: the study's figures over time)."""
    con.execute(DDL)
    for row in questions:
        con.execute(f"INSERT INTO {QUESTIONS_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [run_id, row["study_id"], row["votes"], row["profill_wins"], row["ties"], row["baseline_wins"],
                     row["win_rate"], row["p_value"]])
    con.execute(f"INSERT INTO {OVERALL_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_id, overall["questions"], overall["participants"], overall["votes"], overall["profill_wins"],
                 overall["ties"], overall["baseline_wins"], overall["win_rate"], overall["p_value"]])


def summary(overall: Mapping) -> str:
    """One sentence: the paper's headline figure for this study."""
    if not overall["votes"]:
        return NO_VOTES
    rate = overall["win_rate"]
    wins = (f"proFILL won {rate:.1%} of the non-tie votes ({overall['profill_wins']} of "
            f"{overall['profill_wins'] + overall['baseline_wins']})" if rate is not None else "every vote was a tie")
    return (f"{overall['participants']} participants, {overall['votes']} votes on {overall['questions']} questions: "
            f"{wins}, {overall['ties']} ties; two-sided binomial test p = {overall['p_value']:.3g}")


def markdown(questions: Sequence[Mapping], overall: Mapping) -> str:
    lines = [summary(overall), ""]
    if questions:
        lines += ["| question | proFILL wins | ties | baseline wins | non-tie win rate | p |", "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {q['study_id']} | {q['profill_wins']} | {q['ties']} | {q['baseline_wins']} | "
                  f"{'n/a' if q['win_rate'] is None else format(q['win_rate'], '.1%')} | {q['p_value']:.3g} |"
                  for q in questions]
    return "\n".join(lines)


def chart_svg(questions: Sequence[Mapping]) -> str:
    """Figure 3 of the paper: per question, one horizontal bar of proFILL wins / ties / baseline wins
    (shares of its votes, counts written in). Matplotlib's object API on its SVG canvas, text as
    paths (no font needed to view it), no date: the same votes give the same bytes."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    height = 1.6 + 0.45 * max(len(questions), 1)
    figure = Figure(figsize=(9, height), layout="constrained")
    FigureCanvasSVG(figure)
    axes = figure.subplots()
    axes.set_title("Preference study: which answer was preferred, per question")
    if not questions:
        axes.text(0.5, 0.5, "no votes yet", ha="center", va="center", transform=axes.transAxes)
        axes.set_axis_off()
    else:
        labels = [q["study_id"] for q in questions][::-1]  # the first question on top
        rows = list(questions)[::-1]
        left = [0.0] * len(rows)
        colours = {"profill_wins": "#1f5fbf", "ties": "#b8c0ca", "baseline_wins": "#e07b39"}
        names = {"profill_wins": "proFILL wins", "ties": "ties", "baseline_wins": "baseline wins"}
        for column in ("profill_wins", "ties", "baseline_wins"):
            shares = [r[column] / r["votes"] for r in rows]
            bars = axes.barh(labels, shares, left=left, color=colours[column], label=names[column])
            for bar, row, share in zip(bars, rows, shares):
                if share >= 0.06:
                    axes.text(bar.get_x() + bar.get_width() / 2, bar.get_y() + bar.get_height() / 2,
                              str(row[column]), ha="center", va="center", fontsize=8,
                              color="white" if column != "ties" else "black")
            left = [a + b for a, b in zip(left, shares)]
        axes.set_xlim(0, 1)
        axes.set_xlabel("share of votes")
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(rows) < 4 else -0.12), ncols=3,
                    fontsize=9, frameon=False)
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return out.getvalue()


def write_chart(questions: Sequence[Mapping], directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / CHART_FILE
    path.write_text(chart_svg(questions), encoding="utf-8")
    return path


def report_section(questions: Sequence[Mapping], overall: Mapping, svg: str | None = None) -> str:
    """The study's section of the evaluation report (HTML, the chart inline): its headline, the
    per-question table and Figure 3. `svg`: the chart already drawn (chart_svg), else drawn here."""
    svg = svg if svg is not None else chart_svg(questions)
    inline = svg[svg.find("<svg"):] if "<svg" in svg else ""
    rows = "".join(
        f"<tr><td>{html.escape(q['study_id'])}</td><td>{q['profill_wins']}</td><td>{q['ties']}</td>"
        f"<td>{q['baseline_wins']}</td><td>{'n/a' if q['win_rate'] is None else format(q['win_rate'], '.1%')}</td>"
        f"<td>{q['p_value']:.3g}</td></tr>" for q in questions)
    table = ("<table><thead><tr><th>question</th><th>proFILL wins</th><th>ties</th><th>baseline wins</th>"
             f"<th>non-tie win rate</th><th>p</th></tr></thead><tbody>{rows}</tbody></table>") if questions else ""
    return (f'<section id="preference-study"><h2>Preference study</h2><p>{html.escape(summary(overall))}</p>'
            f"<p>Blind pairwise votes on /study: proFILL against dense retrieval with the profile in the query, "
            f"positions counterbalanced; two-sided exact binomial test of the non-tie votes against 0.5.</p>"
            f'{table}<figure class="chart">{inline}</figure></section>')


def study_section(con: duckdb.DuckDBPyConnection) -> str | None:
    """The report section from the latest `preference_study` run in the lakehouse, or None when the
    asset never ran (for eval/reports/page.py)."""
    exists = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                         [OVERALL_TABLE]).fetchone()[0]
    if not exists:
        return None
    latest = con.execute(f"SELECT run_id FROM {OVERALL_TABLE} ORDER BY rowid DESC LIMIT 1").fetchone()
    if latest is None:
        return None
    cursor = con.execute(f"SELECT * EXCLUDE (run_id) FROM {OVERALL_TABLE} WHERE run_id = ?", [latest[0]])
    overall = dict(zip([d[0] for d in cursor.description], cursor.fetchone()))
    cursor = con.execute(f"SELECT * EXCLUDE (run_id) FROM {QUESTIONS_TABLE} WHERE run_id = ? ORDER BY rowid",
                         [latest[0]])
    columns = [d[0] for d in cursor.description]
    questions = [dict(zip(columns, row)) for row in cursor.fetchall()]
    return report_section(questions, overall)
