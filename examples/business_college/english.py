"""/eng/: English pages for international undergraduates (lang="en"), the same chrome in English."""

from __future__ import annotations

import datetime

from examples.site_kit.markup import a

from . import policies
from .catalog import COURSES, DEPARTMENTS
from .chrome import bullets, para, table
from .model import Output, applies
from .pages import Page

SOURCE = "english-pages"
PAGES = (("index", "International Undergraduates"), ("admission", "Admission"), ("academics", "Academic Guide"),
         ("scholarships", "Scholarships"), ("housing", "Housing"), ("visa", "Visa and Immigration"),
         ("courses", "English-taught Courses"))
SIDE = ("International Students", [(f"/eng/{slug}.html", label) for slug, label in PAGES])
FOREIGN = applies(academic_status="foreign")


def _publish(pg: Page, out: Output, as_of, slug: str, topic: str) -> None:
    label = dict(PAGES)[slug]
    crumbs = [("International Students", "/eng/index.html"), (label, None)] if slug != "index" else [(label, None)]
    pg.publish(out, as_of, source=SOURCE, title=label, crumbs=crumbs, side=SIDE, topic=topic, lang="en")


def build(out: Output, as_of: datetime.date) -> None:
    pg = Page("/eng/index.html", FOREIGN)
    pg.add(para("Welcome to the College of Business & Economics. These pages are for international undergraduates "
                "at the Seoul Campus and the Sejong Campus."),
           bullets([a(f"/eng/{slug}.html", label) for slug, label in PAGES[1:]]))
    _publish(pg, out, as_of, "index", "international")

    pg = Page("/eng/admission.html", FOREIGN)
    pg.add(para("International applicants apply through the university's Office of International Admissions in "
                "spring and in autumn. Applicants need TOPIK level 3 or an English score of TOEFL iBT 80 or higher."))
    _publish(pg, out, as_of, "admission", "admission")

    pg = Page("/eng/academics.html", FOREIGN)
    pg.add(para("International undergraduates follow the curriculum of their department and the rules below, "
                "which depend on the year you were admitted."))
    pg.block("Students admitted in 2021 or earlier", bullets([
        "Korean language courses: 2 courses instead of English-taught courses",
        "TOPIK level 3 or higher before graduation"]), topic="international", entry_year=(2014, 2021))
    pg.block("Students admitted in 2022 or later", bullets([
        "Korean language courses: 3 courses instead of English-taught courses",
        "TOPIK level 4 or higher before graduation"]), topic="international", entry_year=(2022, 2026))
    pg.add(para(f"You may take a leave of absence for at most {policies.FOREIGN_LEAVE_SEMESTERS} consecutive semesters "
                "because of your visa status."))
    _publish(pg, out, as_of, "academics", "international")

    pg = Page("/eng/scholarships.html", FOREIGN)
    pg.add(para("Tuition reductions depend on your TOPIK level:"),
           table("TOPIK scholarships", ["TOPIK level", "Tuition reduction"],
                 [[k.replace("TOPIK ", "Level ").replace("급", ""), f"{v}%"] for k, v in policies.FOREIGN_SCHOLARSHIP.items()]))
    pg.block("Sejong Campus", para("Students at the Sejong Campus may also apply for the regional work-study program, "
                                   f"up to {policies.WORK_STUDY_HOURS} hours a month."), topic="scholarship", campus="sejong")
    _publish(pg, out, as_of, "scholarships", "scholarship")

    pg = Page("/eng/housing.html", FOREIGN)
    for code, label in (("seoul", "Seoul Campus"), ("sejong", "Sejong Campus")):
        name, capacity, fee = policies.DORMS[code]
        pg.block(label, para(f"{name} houses {capacity} students in double rooms; the fee is KRW {fee}0,000 per semester."),
                 topic="dormitory", campus=code)
    _publish(pg, out, as_of, "housing", "dormitory")

    pg = Page("/eng/courses.html", FOREIGN)
    pg.add(para("Each department offers some major courses in English. International undergraduates may take them, "
                "but they do not replace the Korean language courses."))
    for dept in DEPARTMENTS:
        names = sorted({c.name for c in COURSES[dept.code] if c.english})
        pg.block(f"Department of {dept.english}", para(f"{len(names)} English-taught courses: " + ", ".join(names) + "."),
                 topic="curriculum", major=dept.code)
    _publish(pg, out, as_of, "courses", "curriculum")

    pg = Page("/eng/visa.html", FOREIGN)
    pg.add(para("Keep your alien registration card valid. Report a change of address within 14 days, and tell the "
                "International Office before you take a leave of absence."))
    _publish(pg, out, as_of, "visa", "visa")
