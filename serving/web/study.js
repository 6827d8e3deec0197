// The preference study's page (/study): the participant's department, then per question two answers,
// A and B, and a vote. The server never says which system wrote which answer, and this page has no
// way to show it. Everything the server sends is inserted as text, never as HTML.
"use strict";

(function () {
  const { el } = window.dom;  // dom.js, loaded first
  const KEYS = { participant: "study.participant", row: "study.row", department: "study.department",
                 votes: "study.votes" };
  const VOTES = [["a", "A가 더 좋아요"], ["b", "B가 더 좋아요"], ["tie", "비슷해요"]];
  const NOT_SAID = "밝히지 않음";
  const ERROR_TEXT = "설문을 불러오지 못했어요. 잠시 후 다시 시도해 주세요.";
  const VOTE_ERROR_TEXT = "선택을 기록하지 못했어요. 다시 눌러 주세요.";

  const start = document.getElementById("start");
  const select = document.getElementById("department");
  const list = document.getElementById("questions");
  const done = document.getElementById("done");
  const message = document.getElementById("message");
  const loading = document.getElementById("loading");

  function participantId() {
    let id = sessionStorage.getItem(KEYS.participant);
    if (!id) {
      const bytes = new Uint8Array(16);
      crypto.getRandomValues(bytes);
      id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      sessionStorage.setItem(KEYS.participant, id);
    }
    return id;
  }

  function storedVotes() {
    try { return JSON.parse(sessionStorage.getItem(KEYS.votes) || "{}"); } catch (e) { return {}; }
  }

  function showError(text) {
    message.textContent = text;
    message.hidden = false;
  }

  function safeHref(url) {
    try {
      const parsed = new URL(url, location.href);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch (e) { return null; }
  }

  function answerBox(label, answer) {
    const box = el("section", "answer");
    box.appendChild(el("h3", null, "답변 " + label));
    box.appendChild(el("p", "text", answer.answer));
    if (answer.citations && answer.citations.length) {
      const sources = el("ol", "sources");
      for (const citation of answer.citations) {
        const item = el("li");
        const href = safeHref(citation.url);
        const link = el(href ? "a" : "span", null, citation.title || citation.url);
        if (href) { link.href = href; link.target = "_blank"; link.rel = "noopener noreferrer"; }
        item.appendChild(link);
        sources.appendChild(item);
      }
      box.appendChild(sources);
    }
    return box;
  }

  function markVoted(item, vote) {
    for (const button of item.querySelectorAll("button.vote")) {
      button.setAttribute("aria-pressed", String(button.value === vote));
    }
    item.querySelector(".voted").hidden = false;
    item.classList.add("answered");
  }

  function checkDone(total) {
    done.hidden = Object.keys(storedVotes()).length < total;
  }

  async function sendVote(state, question, vote, item) {
    const buttons = item.querySelectorAll("button.vote");
    buttons.forEach((b) => { b.disabled = true; });
    message.hidden = true;
    try {
      const response = await fetch("/v1/study/votes", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ participant: state.participant, row: state.row, study_id: question.id, vote: vote,
                               department: sessionStorage.getItem(KEYS.department) || null }),
      });
      if (response.status !== 204) throw new Error(String(response.status));
      const votes = storedVotes();
      votes[question.id] = vote;
      sessionStorage.setItem(KEYS.votes, JSON.stringify(votes));
      markVoted(item, vote);
      checkDone(state.total);
    } catch (e) {
      showError(VOTE_ERROR_TEXT);
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
    }
  }

  function showQuestions(state, study) {
    const votes = storedVotes();
    list.replaceChildren();
    study.questions.forEach((question, index) => {
      const item = el("li", "question card");
      item.appendChild(el("h2", null, (index + 1) + ". " + question.question));
      item.appendChild(el("p", "profile", "이 학생이 묻는 질문이에요: " + question.profile_text));
      const answers = el("div", "answers");
      answers.appendChild(answerBox("A", question.a));
      answers.appendChild(answerBox("B", question.b));
      item.appendChild(answers);
      const row = el("div", "votes");
      row.setAttribute("role", "group");
      row.setAttribute("aria-label", "어느 답변이 더 도움이 되나요?");
      for (const [value, label] of VOTES) {
        const button = el("button", "vote", label);
        button.type = "button";
        button.value = value;
        button.setAttribute("aria-pressed", "false");
        button.addEventListener("click", () => sendVote(state, question, value, item));
        row.appendChild(button);
      }
      item.appendChild(row);
      const voted = el("p", "voted", "선택을 기록했어요. 바꾸려면 다른 쪽을 누르세요.");
      voted.hidden = true;
      item.appendChild(voted);
      list.appendChild(item);
      if (votes[question.id]) markVoted(item, votes[question.id]);
    });
    start.hidden = true;
    list.hidden = false;
    checkDone(state.total);
  }

  function askDepartment(state, study) {
    document.getElementById("department-question").textContent = study.department.question;
    select.replaceChildren();
    for (const option of study.department.options) {
      const node = el("option", null, option.label);
      node.value = option.value;
      select.appendChild(node);
    }
    const none = el("option", null, NOT_SAID);
    none.value = "";
    select.appendChild(none);
    start.hidden = false;
    start.addEventListener("submit", (event) => {
      event.preventDefault();
      sessionStorage.setItem(KEYS.department, select.value);
      showQuestions(state, study);
    });
  }

  async function load() {
    const participant = participantId();
    const params = new URLSearchParams({ participant: participant });
    const knownRow = sessionStorage.getItem(KEYS.row);
    if (knownRow !== null) params.set("row", knownRow);
    let study;
    try {
      const response = await fetch("/v1/study?" + params.toString());
      if (!response.ok) throw new Error(String(response.status));
      study = await response.json();
    } catch (e) {
      loading.hidden = true;
      showError(ERROR_TEXT);
      return;
    }
    loading.hidden = true;
    sessionStorage.setItem(KEYS.row, String(study.row));
    const state = { participant: participant, row: study.row, total: study.questions.length };
    if (sessionStorage.getItem(KEYS.department) !== null) showQuestions(state, study);
    else askDepartment(state, study);
  }

  load();
})();
