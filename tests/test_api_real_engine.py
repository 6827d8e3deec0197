"""The API over the real engine and a real index build: a newly published build is swapped in
while students are mid-conversation, and no request fails."""

from __future__ import annotations

import json
import os
import shutil
import threading

import httpx

from advisor.index.layout import LATEST, latest_build_id, new_build_id
from serving.api import ServingSettings, create_app
from serving.api.server import builds_holder
from tests.fake_advisor import running_server, wait_for

QUESTIONS = ["졸업하려면 전공 몇 학점 들어야 해요?", "제가 받을 수 있는 장학금이 있나요?", "안녕하세요", "전공필수 과목이 뭐예요?"]
PROFILE = {"department": "DS", "admission_year": 2020, "major_type": "double", "grade": 3, "student_status": "enrolled"}


def converse(client: httpx.Client, question: str) -> dict:
    body = client.post("/v1/chat", json={"session_id": None, "message": question}).raise_for_status().json()
    while body["type"] == "ask":
        answers = {q["attribute"]: PROFILE.get(q["attribute"]) for q in body["questions"]}
        body = client.post("/v1/chat", json={"session_id": body["session_id"], "profile": answers}).raise_for_status().json()
    return body


def publish_copy(builds_root, source_id: str) -> str:
    """A second build (same content, new id) published the way the pipeline publishes."""
    new_id = new_build_id("feedc0de" * 8)
    shutil.copytree(builds_root / source_id, builds_root / new_id)
    manifest_path = builds_root / new_id / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest_path.write_text(json.dumps({**manifest, "build_id": new_id}, ensure_ascii=False), encoding="utf-8")
    pointer = builds_root / f"{LATEST}.tmp-test"
    pointer.write_text(new_id + "\n", encoding="utf-8")
    os.replace(pointer, builds_root / LATEST)
    return new_id


def test_build_swap_mid_conversation_with_the_real_engine(demo_warehouse, tmp_path):
    builds = tmp_path / "builds"
    first = latest_build_id(demo_warehouse.builds)
    shutil.copytree(demo_warehouse.builds / first, builds / first)
    (builds / LATEST).write_text(first + "\n", encoding="utf-8")
    holder = builds_holder(builds, demo_warehouse.config(), None, reload_interval=0.1)
    app = create_app(holder, ServingSettings(reload_interval=0.1, rate_per_minute=0))
    failures, answers, stop = [], [], threading.Event()

    def student(number: int) -> None:
        with httpx.Client(base_url=base, timeout=60) as client:
            turn = number
            while not stop.is_set():
                try:
                    answers.append(converse(client, QUESTIONS[turn % len(QUESTIONS)]))
                except Exception as exc:  # noqa: BLE001 - any failure is what this test counts
                    failures.append(repr(exc))
                turn += 1

    with running_server(app) as base:
        wait_for(lambda: httpx.get(f"{base}/healthz").status_code == 200, timeout=120)
        students = [threading.Thread(target=student, args=(i,)) for i in range(4)]
        for thread in students:
            thread.start()
        wait_for(lambda: len(answers) >= 4, timeout=120)
        second = publish_copy(builds, first)
        wait_for(lambda: httpx.get(f"{base}/v1/index").json()["build_id"] == second, timeout=120)
        served_before = len(answers)
        wait_for(lambda: len(answers) >= served_before + 4, timeout=120)  # conversations go on on the new build
        stop.set()
        for thread in students:
            thread.join(timeout=120)
    assert failures == []
    assert all(a["type"] == "answer" and a["tier"] in ("template", "faq", "documents", "fallback") for a in answers)
    assert any(a["citations"] for a in answers)
