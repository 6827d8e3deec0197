// The student's chat page: no framework, no build step. Everything the server sends is inserted
// as text (never as HTML), and only http(s) links are made clickable.
//
// The conversation is kept in this tab's sessionStorage (survives a reload, gone with the tab):
// the turns as the page shows them and the session_id, nothing else. An answer's profile_used is
// not kept (the page never shows it); a profile question keeps only the option the student pressed.
"use strict";

(function () {
  const { el } = window.dom;  // dom.js, loaded first
  // "don't know" in the language the question is asked in (an English question gets English ones):
  // the server's words, written into the page when it is served
  const UNKNOWN_LABELS = readJson(document.body.dataset.unknownOption);
  // What kind of answer it is, in the language of the answer (the badge must agree with its body).
  const BADGES = {
    ko: {
      template: "안내", faq: "FAQ 답변", documents_extractive: "문서에서 찾은 답변",
      documents_llm: "문서를 바탕으로 생성한 답변", fallback_fallback: "답을 찾지 못했어요",
      fallback_llm: "참고용 일반 답변", other: "답변",
    },
    en: {
      template: "Notice", faq: "FAQ answer", documents_extractive: "Found in the documents",
      documents_llm: "Written from the documents", fallback_fallback: "No answer found",
      fallback_llm: "General answer (for reference)", other: "Answer",
    },
  };
  const FEEDBACK_REASONS = [
    ["wrong", "틀린 정보"], ["outdated", "오래된 정보"], ["not_my_case", "내 경우와 다름"],
    ["unclear", "이해하기 어려움"], ["other", "기타"],
  ];
  const DATE = /^\d{4}-\d{2}-\d{2}/;
  const STORE_KEY = "advisor.conversation.v1";

  const log = document.getElementById("log");
  const form = document.getElementById("composer");
  const input = document.getElementById("message");
  const fieldError = document.getElementById("message-error");
  const fieldCount = document.getElementById("message-count");
  const sendButton = document.getElementById("send");
  const newButton = document.getElementById("new-conversation");
  const status = document.getElementById("status");
  const snapshotDialog = document.getElementById("snapshot");
  const SNAPSHOT_PATH = /^\/v1\/sources\/[A-Za-z0-9_-]{1,64}$/;
  // The server's limit, written into the page when it is served; not a number when the page was
  // opened some other way, and then only the server checks.
  const MAX_CHARS = parseInt(form.dataset.maxMessageChars, 10);
  const OFFLINE_TEXT = "서버에 연결할 수 없어요. 보내지 못한 질문은 입력창에 남겨 두었어요. 잠시 후 다시 시도해 주세요.";
  const BUSY_TEXT = "답변을 준비하고 있어요…";
  const EXPIRED_TEXT = "이전 대화가 만료되어 새 대화를 시작했어요. 위의 내용은 이전 대화예요.";
  const EMPTY_TEXT = "질문을 입력해 주세요. 빈칸만으로는 보낼 수 없어요.";
  // The server's error messages are English for developers; students read these (by error code).
  const ERROR_TEXTS = {
    empty_message: EMPTY_TEXT,
    message_too_long: "질문이 너무 길어요. " + grouped(MAX_CHARS) + "자 이내로 줄여 주세요.",
    body_too_large: "보낸 내용이 너무 길어요. 줄여서 다시 보내 주세요.",
    invalid_input: "선택한 답을 처리하지 못했어요. 다시 선택해 주세요.",
    unknown_chunk: "이 출처의 저장된 사본을 찾을 수 없어요. 원문 링크를 이용해 주세요.",
    no_snapshots: "지금 자료에는 저장된 사본이 없어요. 원문 링크를 이용해 주세요.",
    invalid_chunk_id: "이 출처의 저장된 사본을 찾을 수 없어요. 원문 링크를 이용해 주세요.",
  };
  if (!Number.isFinite(MAX_CHARS)) ERROR_TEXTS.message_too_long = "질문이 너무 길어요. 줄여서 다시 보내 주세요.";
  const DEFAULT_ERROR_TEXT = "요청을 처리하지 못했어요. 다시 시도해 주세요.";
  const UNREACHABLE_NOTE = "원문 사이트에 지금 연결할 수 없어 저장해 둔 사본을 보여 드려요.";
  const UNREACHABLE_TITLE = "원문 사이트에 연결할 수 없어 저장된 사본이 열려요";
  // How long the page waits for an original site before calling it unreachable: long enough for a
  // slow but working site, short enough that a click still counts as the student's own (Chromium
  // lets a page open a window for 5 s after a click).
  const PROBE_TIMEOUT_MS = 3000;
  const PROBE_TTL_MS = 2 * 60 * 1000; // a site that was down is asked again after this

  // The conversation: what the page shows, turn by turn (kept in sessionStorage), and its session.
  let state = { sessionId: null, turns: [] };
  let busy = false;

  // A value the server wrote into the page, or {} when the page was opened some other way.
  function readJson(text) {
    try {
      const value = JSON.parse(text || "{}");
      return value && typeof value === "object" ? value : {};
    } catch (e) {
      return {};
    }
  }

  function grouped(number) {
    return Number.isFinite(number) ? number.toLocaleString("ko-KR") : String(number);
  }

  // Characters as the server counts them (code points, after trimming), not UTF-16 units.
  function charCount(text) {
    return Array.from(text).length;
  }

  // ------------------------------------------------------------------ the kept conversation

  function save() {
    try {
      sessionStorage.setItem(STORE_KEY, JSON.stringify(state));
    } catch (e) {
      // storage full or refused (private mode): the conversation still works, it just won't survive a reload
    }
  }

  function load() {
    try {
      const kept = JSON.parse(sessionStorage.getItem(STORE_KEY) || "null");
      if (kept && Array.isArray(kept.turns)) {
        return { sessionId: typeof kept.sessionId === "string" ? kept.sessionId : null, turns: kept.turns };
      }
    } catch (e) {
      // unreadable: start afresh
    }
    return null;
  }

  function forget() {
    try {
      sessionStorage.removeItem(STORE_KEY);
    } catch (e) {
      // nothing kept
    }
  }

  // A turn is added to the log and to the kept conversation; its bubble is drawn from the record.
  function addTurn(turn, before) {
    if (before) {
      state.turns.splice(state.turns.indexOf(before.turn), 0, turn);
    } else {
      state.turns.push(turn);
    }
    save();
    return show(turn, before ? before.item : null);
  }

  function show(turn, beforeItem) {
    const item = el("li");
    if (turn.earlier) item.classList.add("earlier");
    item.appendChild(draw(turn));
    if (beforeItem) {
      log.insertBefore(item, beforeItem);
    } else {
      log.appendChild(item);
    }
    return { item: item, turn: turn, box: item.firstChild };
  }

  function draw(turn) {
    switch (turn.kind) {
      case "mine": {
        const box = el("div", "msg mine" + (turn.unsent ? " unsent" : ""), turn.text);
        box.lang = turn.lang || "ko";
        return box;
      }
      case "ask": return drawQuestions(turn);
      case "answer": return drawAnswer(turn);
      case "notice": return el("div", "msg notice", turn.text);
      default: {
        const box = el("div", "msg error", turn.text);
        box.setAttribute("role", "alert");
        return box;
      }
    }
  }

  function reveal(item) {
    // The input bar is sticky at the bottom: keep the newest reply (and its option buttons) above
    // it, not behind it, whatever the bar's height on this screen.
    item.style.scrollMarginBottom = (form.offsetHeight + 8) + "px";
    item.scrollIntoView({ block: "end" });
  }

  function append(turn) {
    const shown = addTurn(turn);
    reveal(shown.item);
    return shown;
  }

  function showAlert(text) {
    append({ kind: "error", text: text });
  }

  // ------------------------------------------------------------------ a request in flight

  function setBusy(value) {
    busy = value;
    sendButton.disabled = value;
    log.setAttribute("aria-busy", value ? "true" : "false");
    status.textContent = value ? BUSY_TEXT : "";
  }

  function showPending() {
    // not an .answer: it is no answer, and whatever counts the answers must not count it
    const item = el("li", "pending");
    const box = el("div", "msg pending", BUSY_TEXT);
    box.setAttribute("aria-hidden", "true"); // said once by the status line, not again by the log
    item.appendChild(box);
    log.appendChild(item);
    reveal(item);
    return item;
  }

  function safeUrl(url) {
    try {
      const parsed = new URL(url, window.location.href);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch (e) {
      return null;
    }
  }

  // {ok: true} when the server answered the turn; else {ok: false, status, error} (already shown,
  // except a message's own faults, which the caller shows beside the box).
  // The reply says its language (the server reads the student's message; the page has no rule of
  // its own): its questions, labels and badge are drawn in it, and the student's message is marked so.
  async function post(body) {
    const conversation = state;
    setBusy(true);
    const pending = showPending();
    let response = null;
    let data = null;
    try {
      response = await fetch("/v1/chat", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      data = await response.json().catch(() => null);
    } catch (e) {
      response = null;
    } finally {
      pending.remove();
      setBusy(false);
    }
    if (conversation !== state) return { ok: false, status: -1, error: {} }; // "새 대화" was pressed meanwhile
    if (response === null) {
      showAlert(OFFLINE_TEXT);
      return { ok: false, status: 0, error: {} };
    }
    if (response.ok && data) {
      state.sessionId = data.session_id;
      render(data);
      return { ok: true, language: data.language || "ko" };
    }
    const error = (data && data.error) || {};
    const failure = { ok: false, status: response.status, error: error };
    if (response.status === 404 && error.code === "unknown_session") return failure; // the caller starts anew
    if (response.status === 422 && error.field === "message") return failure; // said beside the box
    showAlert(errorText(response, error));
    return failure;
  }

  function errorText(response, error) {
    if (response.status === 429) {
      const wait = response.headers.get("Retry-After");
      return "요청이 너무 많아요." + (wait ? " " + wait + "초 후에 다시 시도해 주세요." : "");
    }
    if (response.status === 503 && error.code === "no_build") {
      return "아직 자료가 준비되지 않았어요. 잠시 후 다시 시도해 주세요.";
    }
    return ERROR_TEXTS[error.code] || (response.status >= 500 ? "답변을 만드는 중 문제가 생겼어요. 다시 시도해 주세요."
                                                               : DEFAULT_ERROR_TEXT);
  }

  // The session is gone on the server (expired, or forgotten elsewhere): what is shown stays, as
  // the earlier conversation, and the next turn starts a new one.
  function sessionExpired(beforeShown, text) {
    state.sessionId = null;
    state.turns.forEach((turn) => {
      if (beforeShown && turn === beforeShown.turn) return;
      turn.earlier = true;
    });
    Array.from(log.children).forEach((item) => {
      if (beforeShown && item === beforeShown.item) return;
      item.classList.add("earlier");
      item.querySelectorAll("fieldset.question:not(.answered)").forEach(closeGroup);
    });
    const notice = addTurn({ kind: "notice", text: text || EXPIRED_TEXT }, beforeShown);
    notice.box.setAttribute("role", "status");
  }

  function render(reply) {
    const lang = reply.language || "ko";
    if (reply.type === "ask") {
      const shown = append({ kind: "ask", lang: lang, questions: keptQuestions(reply.questions || []), chosen: {},
                             closed: false });
      const first = shown.box.querySelector("button.option:not(:disabled)");
      if (first) first.focus();
    } else {
      append({ kind: "answer", lang: lang, reply: keptAnswer(reply), feedback: null });
    }
  }

  // Only what the page shows: no profile_used, no fields the page does not draw.
  function keptAnswer(reply) {
    return {
      answer: reply.answer, tier: reply.tier, answer_method: reply.answer_method, disclaimer: reply.disclaimer,
      answer_id: typeof reply.answer_id === "string" ? reply.answer_id : null,
      citations: (reply.citations || []).map((c) => ({
        url: c.url, title: c.title, snippet: c.snippet, snapshot: c.snapshot,
        published_on: c.published_on, updated_on: c.updated_on, fetched_at: c.fetched_at,
      })),
    };
  }

  function keptQuestions(questions) {
    return questions.map((q) => ({
      attribute: q.attribute, question: q.question,
      options: (q.options || []).map((o) => ({ value: o.value, label: o.label })),
    }));
  }

  // ------------------------------------------------------------------ profile questions

  function drawQuestions(turn) {
    const box = el("div", "msg ask");
    const answers = {};
    const groups = [];
    const open = !turn.closed && !turn.earlier && state.sessionId !== null;
    turn.questions.forEach((question) => {
      const group = el("fieldset", "question");
      group.dataset.attribute = question.attribute;
      group.appendChild(el("legend", null, question.question));
      group.lang = turn.lang || "ko";
      const options = el("div", "options");
      const choices = question.options.map((o) => ({ value: o.value, label: o.label, unknown: false }));
      choices.push({ value: null, label: UNKNOWN_LABELS[group.lang === "ko" ? "ko" : "en"], unknown: true });
      const chosen = (turn.chosen || {})[question.attribute];
      choices.forEach((choice, index) => {
        const button = el("button", "option" + (choice.unknown ? " unknown" : ""), choice.label);
        button.type = "button";
        button.setAttribute("aria-pressed", String(chosen === index));
        if (!open) button.disabled = true;
        button.addEventListener("click", () => {
          if (group.classList.contains("answered") || busy) return;
          answers[question.attribute] = { value: choice.value, index: index };
          button.setAttribute("aria-pressed", "true");
          group.classList.add("answered");
          group.querySelectorAll("button").forEach((b) => { b.disabled = true; });
          const next = groups.find((g) => !g.classList.contains("answered"));
          if (next) {
            next.querySelector("button").focus();
            return;
          }
          input.focus();
          const profile = {};
          Object.keys(answers).forEach((name) => { profile[name] = answers[name].value; });
          post({ session_id: state.sessionId, profile: profile }).then((result) => {
            if (result.ok) {
              turn.closed = true;
              Object.keys(answers).forEach((name) => { turn.chosen[name] = answers[name].index; });
              save();
            } else if (result.status === 404) {
              sessionExpired(null, EXPIRED_TEXT + " 이 선택은 보내지 못했으니 질문을 다시 입력해 주세요.");
              reveal(log.lastElementChild);
            } else {
              // Not delivered (server down): the buttons come back, so the answers can be sent again.
              groups.forEach((g) => reopen(g, answers));
            }
          });
        });
        options.appendChild(button);
      });
      group.appendChild(options);
      if (!open || chosen !== undefined) group.classList.add("answered");
      groups.push(group);
      box.appendChild(group);
    });
    return box;
  }

  function closeGroup(group) {
    group.classList.add("answered");
    group.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  }

  function reopen(group, answers) {
    delete answers[group.dataset.attribute];
    group.classList.remove("answered");
    group.querySelectorAll("button").forEach((b) => {
      b.disabled = false;
      b.setAttribute("aria-pressed", "false");
    });
  }

  // ------------------------------------------------------------------ answers

  function badge(reply, lang) {
    const texts = BADGES[lang] || BADGES.ko;
    if (reply.tier === "documents" || reply.tier === "fallback") {
      // documents: quoted (extractive) or written by a model; fallback: nothing found (an honest
      // no-answer) or a model's general answer under a disclaimer. Never "answer" over "not found".
      const key = reply.tier + "_" + (reply.answer_method === "llm" ? "llm" : reply.tier === "documents" ? "extractive" : "fallback");
      return texts[key];
    }
    return texts[reply.tier] || texts.other;
  }

  function drawAnswer(turn) {
    const reply = turn.reply;
    const lang = turn.lang || "ko";
    const box = el("div", "msg answer" + (reply.tier === "fallback" ? " fallback" : ""));
    box.dataset.tier = reply.tier || "";
    box.dataset.method = reply.answer_method || "";
    const tag = el("span", "tier", badge(reply, lang));
    tag.lang = lang;
    box.appendChild(tag);
    if (reply.tier === "fallback" && reply.disclaimer) {
      const warning = el("p", "disclaimer", reply.disclaimer);
      warning.setAttribute("role", "note");
      warning.lang = lang;
      box.appendChild(warning);
    }
    const text = el("p", "text", reply.answer);
    text.lang = lang;
    box.appendChild(text);
    if (reply.tier !== "fallback" && reply.disclaimer) {
      const note = el("p", "note", reply.disclaimer);
      note.lang = lang;
      box.appendChild(note);
    }
    const citations = reply.citations || [];
    if (citations.length) box.appendChild(drawCitations(citations));
    box.appendChild(drawActions(turn));
    return box;
  }

  // The source's own dates (posted, updated) and when the crawl fetched it: a notice from two
  // years ago must not look as current as this week's.
  function citationDates(citation) {
    const parts = [];
    if (DATE.test(citation.published_on || "")) parts.push("게시 " + citation.published_on.slice(0, 10));
    if (DATE.test(citation.updated_on || "")) parts.push("수정 " + citation.updated_on.slice(0, 10));
    if (DATE.test(citation.fetched_at || "")) parts.push("수집 " + citation.fetched_at.slice(0, 10));
    return parts.join(" · ");
  }

  function drawCitations(citations) {
    const section = el("section", "sources");
    section.appendChild(el("h2", "visually-hidden", "출처"));
    const list = el("ol", "citations");
    list.setAttribute("aria-label", "출처");
    citations.forEach((citation) => {
      const item = el("li");
      const href = safeUrl(citation.url);
      const title = citation.title || citation.url;
      const snapshot = citation.snapshot && SNAPSHOT_PATH.test(citation.snapshot) ? citation.snapshot : null;
      if (href) {
        const link = el("a", "original", title);
        link.href = href;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        if (snapshot) openOriginalOrSnapshot(link, href, snapshot);
        item.appendChild(link);
      } else {
        item.appendChild(el("span", null, title));
      }
      // The saved copy, always offered: the student may prefer it (the cited passage is marked).
      if (snapshot) {
        const saved = el("a", "saved-copy", "저장된 사본");
        saved.href = snapshot;
        saved.addEventListener("click", (event) => {
          event.preventDefault();
          openSnapshot(snapshot);
        });
        item.appendChild(saved);
      }
      const dates = citationDates(citation);
      if (dates) item.appendChild(el("span", "dates", dates));
      if (citation.snippet) item.appendChild(el("span", "snippet", citation.snippet));
      list.appendChild(item);
    });
    section.appendChild(list);
    return section;
  }

  function drawActions(turn) {
    const actions = el("div", "actions");
    const copy = el("button", "secondary small copy", "복사");
    copy.type = "button";
    copy.setAttribute("aria-label", "답변 복사");
    copy.addEventListener("click", () => copyAnswer(turn.reply, copy));
    actions.appendChild(copy);
    if (turn.reply.answer_id) actions.appendChild(drawFeedback(turn));
    return actions;
  }

  // ------------------------------------------------------------------ copying an answer

  function answerAsText(reply) {
    const lines = [reply.answer];
    const sources = (reply.citations || []).filter((c) => safeUrl(c.url));
    if (sources.length) {
      lines.push("", "출처:");
      sources.forEach((c, i) => lines.push((i + 1) + ". " + (c.title ? c.title + " " : "") + c.url));
    }
    return lines.join("\n");
  }

  // The old way, for a browser without the Clipboard API (or one that refuses it): a selected,
  // off-screen text area and the copy command.
  function copyWithSelection(text) {
    const area = el("textarea", "visually-hidden");
    area.value = text;
    area.setAttribute("readonly", "");
    document.body.appendChild(area);
    area.select();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (e) {
      copied = false;
    }
    area.remove();
    return copied;
  }

  async function copyAnswer(reply, button) {
    const text = answerAsText(reply);
    let copied = false;
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(text);
        copied = true;
      } catch (e) {
        copied = false;
      }
    }
    if (!copied) copied = copyWithSelection(text);
    button.focus(); // the fallback's selection took the focus
    button.textContent = copied ? "복사했어요" : "복사하지 못했어요";
    status.textContent = copied ? "답변을 복사했어요." : "답변을 복사하지 못했어요. 직접 선택해서 복사해 주세요.";
    clearTimeout(button.resetTimer);
    button.resetTimer = setTimeout(() => { button.textContent = "복사"; }, 2500);
  }

  // ------------------------------------------------------------------ feedback on an answer

  function drawFeedback(turn) {
    const box = el("div", "feedback");
    if (turn.feedback) {
      box.appendChild(el("p", "thanks", "의견 고마워요!"));
      return box;
    }
    const ask = el("div", "feedback-ask");
    ask.setAttribute("role", "group");
    const prompt = el("span", "feedback-prompt", "도움이 됐나요?");
    prompt.id = "fb-" + turn.reply.answer_id;
    ask.setAttribute("aria-labelledby", prompt.id);
    const yes = el("button", "secondary small helpful", "도움이 됐어요");
    const no = el("button", "secondary small not-helpful", "아니에요");
    yes.type = no.type = "button";
    ask.append(prompt, yes, no);

    const reasons = el("fieldset", "reasons");
    reasons.hidden = true;
    reasons.id = "fb-reasons-" + turn.reply.answer_id;
    no.setAttribute("aria-expanded", "false");
    no.setAttribute("aria-controls", reasons.id);
    reasons.appendChild(el("legend", null, "어떤 점이 아쉬웠나요? (선택)"));
    const choices = el("div", "reason-options");
    FEEDBACK_REASONS.forEach(([code, label]) => {
      const option = el("label", "reason");
      const radio = el("input");
      radio.type = "radio";
      radio.name = "reason-" + turn.reply.answer_id;
      radio.value = code;
      option.append(radio, document.createTextNode(" " + label));
      choices.appendChild(option);
    });
    reasons.appendChild(choices);
    const submit = el("button", "small send-feedback", "의견 보내기");
    submit.type = "button";
    reasons.appendChild(submit);
    const problem = el("p", "feedback-error");
    problem.setAttribute("aria-live", "polite");
    box.append(ask, reasons, problem);

    const controls = [yes, no, submit];
    async function send(helpful, reason) {
      controls.forEach((b) => { b.disabled = true; });
      problem.textContent = "";
      const sent = await postFeedback(turn.reply.answer_id, helpful, reason);
      if (sent) {
        turn.feedback = { helpful: helpful, reason: reason };
        save();
        const thanks = el("p", "thanks", "의견 고마워요!");
        thanks.tabIndex = -1;
        box.replaceChildren(thanks);
        thanks.focus();
        status.textContent = "의견을 보냈어요. 고마워요!";
      } else {
        controls.forEach((b) => { b.disabled = false; });
        problem.textContent = "의견을 보내지 못했어요. 잠시 후 다시 시도해 주세요.";
      }
    }
    yes.addEventListener("click", () => send(true, null));
    no.addEventListener("click", () => {
      const opening = reasons.hidden;
      reasons.hidden = !opening;
      no.setAttribute("aria-expanded", String(opening));
      if (opening) {
        // above the sticky input bar, not behind it
        reasons.style.scrollMarginBottom = (form.offsetHeight + 8) + "px";
        reasons.scrollIntoView({ block: "nearest" });
        reasons.querySelector("input").focus({ preventScroll: true });
      }
    });
    submit.addEventListener("click", () => {
      const picked = reasons.querySelector("input:checked");
      send(false, picked ? picked.value : null);
    });
    return box;
  }

  async function postFeedback(answerId, helpful, reason) {
    try {
      const response = await fetch("/v1/feedback", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ answer_id: answerId, helpful: helpful, reason: reason }),
      });
      return response.ok;
    } catch (e) {
      return false;
    }
  }

  // ------------------------------------------------------------------ originals that may be down
  //
  // The build's sources may be offline now (the demo college's site is served only during the
  // crawl; a real site may be down for maintenance). The browser itself checks: a no-cors HEAD
  // request to the original's site, with a timeout. Opaque, so it says only "the site answered",
  // which is the question; the student's own network decides (not the server's: a site may be
  // reachable from one and not the other), and the server never fetches a URL for a client (no
  // SSRF surface). No cookies, no referrer. Checked once per site, when the answer is shown, so a
  // click is decided at once. A reachable original opens as a normal link; an unreachable one
  // opens the saved copy, with a note. Anything that stops the check (network error, timeout, the
  // page's connect-src policy, the browser's guard against public pages reaching private or
  // loopback addresses) counts as unreachable: the saved copy always opens, and it links to the
  // original. The page's connect-src names exactly the sites the served build's documents come
  // from (serving/api/guards.py), so the check may reach those and nothing else.

  const reachability = new Map(); // origin -> {at, result: Promise<"reachable"|"unreachable"|"unknown">}

  function reachable(href) {
    const url = new URL(href);
    if (url.origin === window.location.origin) return Promise.resolve("reachable");
    if (window.location.protocol === "https:" && url.protocol === "http:") {
      // Mixed content: the browser would refuse the check, not the link. Nothing to learn.
      return Promise.resolve("unknown");
    }
    const known = reachability.get(url.origin);
    if (known && Date.now() - known.at < PROBE_TTL_MS) return known.result;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
    const result = fetch(url.href, {
      method: "HEAD", mode: "no-cors", cache: "no-store", credentials: "omit", redirect: "follow",
      referrerPolicy: "no-referrer", signal: controller.signal,
    }).then(() => "reachable", () => "unreachable").finally(() => clearTimeout(timer));
    reachability.set(url.origin, { at: Date.now(), result: result });
    return result;
  }

  function openOriginalOrSnapshot(link, href, snapshot) {
    link.dataset.reachable = "checking";
    reachable(href).then((state) => {
      link.dataset.reachable = state;
      if (state === "unreachable") {
        link.classList.add("unreachable");
        link.title = UNREACHABLE_TITLE;
      }
    });
    link.addEventListener("click", (event) => {
      // A modified click (new tab, save, ...) stays the browser's own.
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const state = link.dataset.reachable;
      if (state === "reachable" || state === "unknown") return; // opens normally
      event.preventDefault();
      if (state === "unreachable") {
        openSnapshot(snapshot, UNREACHABLE_NOTE);
        return;
      }
      reachable(href).then((result) => { // still checking: decided within PROBE_TIMEOUT_MS
        if (result === "unreachable") {
          openSnapshot(snapshot, UNREACHABLE_NOTE);
        } else {
          window.open(href, "_blank", "noopener,noreferrer");
        }
      });
    });
  }

  // ------------------------------------------------------------------ the saved copy of a source

  function fillSnapshot(source) {
    snapshotDialog.querySelector("#snapshot-title").textContent = source.title || source.url;
    const date = (source.fetched_at || "").slice(0, 10);
    const meta = [date ? date + " 수집" : null, source.published_on ? source.published_on + " 게시" : null]
      .filter(Boolean).join(" · ");
    snapshotDialog.querySelector(".snapshot-meta").textContent =
      "출처 사이트에서 저장해 둔 사본입니다" + (meta ? " (" + meta + ")" : "") + ". 표시된 부분이 인용된 곳이에요.";
    const origin = snapshotDialog.querySelector(".snapshot-origin");
    origin.replaceChildren();
    const href = safeUrl(source.url);
    if (href) {
      origin.appendChild(document.createTextNode("원문: "));
      const link = el("a", null, source.url);
      link.href = href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      origin.appendChild(link);
    }
    // Text nodes only (never markup): the document as saved, the cited passage in a <mark>.
    const body = snapshotDialog.querySelector(".snapshot-text");
    const text = source.text || "";
    const chunk = source.chunk || {};
    body.replaceChildren();
    if (Number.isInteger(chunk.start) && Number.isInteger(chunk.end) && chunk.start < chunk.end) {
      const mark = el("mark", null, text.slice(chunk.start, chunk.end));
      body.append(document.createTextNode(text.slice(0, chunk.start)), mark,
                  document.createTextNode(text.slice(chunk.end)));
      return mark;
    }
    body.textContent = text;
    return null;
  }

  async function openSnapshot(path, note) {
    let source;
    try {
      const response = await fetch(path);
      const data = await response.json().catch(() => null);
      if (!response.ok || !data) {
        showAlert(errorText(response, (data && data.error) || {}));
        return;
      }
      source = data;
    } catch (e) {
      showAlert("서버에 연결할 수 없어 저장된 사본을 열지 못했어요. 잠시 후 다시 시도해 주세요.");
      return;
    }
    const mark = fillSnapshot(source);
    const noteBox = snapshotDialog.querySelector(".snapshot-note");
    noteBox.textContent = note || "";
    noteBox.hidden = !note;
    if (!snapshotDialog.open) snapshotDialog.showModal();
    if (mark) mark.scrollIntoView({ block: "center" });
  }

  document.getElementById("snapshot-close").addEventListener("click", () => snapshotDialog.close());

  // ------------------------------------------------------------------ checking and sending a message

  // What is wrong with the message, said in Korean, or null. Nothing is cut: a message over the
  // limit stays in the box as typed, for the student to shorten.
  function problemWith(text) {
    const message = text.trim();
    if (!message) return EMPTY_TEXT;
    const length = charCount(message);
    if (Number.isFinite(MAX_CHARS) && length > MAX_CHARS) {
      return "질문이 너무 길어요: 지금 " + grouped(length) + "자예요. " + grouped(MAX_CHARS) + "자 이내로 줄여 주세요.";
    }
    return null;
  }

  function describeInput() {
    const ids = [fieldError, fieldCount].filter((node) => node.textContent).map((node) => node.id);
    if (ids.length) {
      input.setAttribute("aria-describedby", ids.join(" "));
    } else {
      input.removeAttribute("aria-describedby");
    }
  }

  function showFieldError(text) {
    fieldError.textContent = text || "";
    if (text) {
      input.setAttribute("aria-invalid", "true");
    } else {
      input.removeAttribute("aria-invalid");
    }
    describeInput();
  }

  // The count, once the message nears the limit (not a live region: it changes with every key).
  function showCount() {
    const length = charCount(input.value.trim());
    const near = Number.isFinite(MAX_CHARS) && length > MAX_CHARS * 0.9;
    fieldCount.textContent = near ? grouped(length) + " / " + grouped(MAX_CHARS) + "자" : "";
    fieldCount.classList.toggle("over", near && length > MAX_CHARS);
    return near && length > MAX_CHARS;
  }

  input.addEventListener("input", () => {
    const over = showCount();
    if (over && !input.hasAttribute("aria-invalid")) {
      showFieldError("질문이 너무 길어요. " + grouped(MAX_CHARS) + "자 이내로 줄여 주세요.");
    } else if (!over && input.hasAttribute("aria-invalid") && input.value.trim()) {
      showFieldError(null);
    } else {
      describeInput();
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (busy) return;
    const problem = problemWith(input.value);
    if (problem) {
      showCount();
      showFieldError(problem);
      input.focus();
      return;
    }
    showFieldError(null);
    const message = input.value.trim();
    const mine = append({ kind: "mine", text: message });
    input.value = "";
    showCount();
    input.focus(); // the send button is disabled while the answer comes: the focus stays in the box
    // Questions still open when the student types: the message answers them ("컴퓨터학과요") or
    // asks something else; either way their buttons are done once the server has it.
    const open = state.turns.filter((t) => t.kind === "ask" && !t.closed && !t.earlier);
    const groups = Array.from(log.querySelectorAll("li:not(.earlier) fieldset.question:not(.answered)"));
    let result = await post({ session_id: state.sessionId, message: message });
    if (!result.ok && result.status === 404) {
      sessionExpired(mine);
      result = await post({ session_id: null, message: message });
    }
    if (result.status === -1) return; // the student started a new conversation meanwhile
    if (result.ok) {
      mine.turn.lang = mine.box.lang = result.language;
      open.forEach((turn) => { turn.closed = true; });
      groups.forEach(closeGroup);
      save();
      return;
    }
    // Not answered (server down, overloaded, refused): the student's text goes back to the
    // input, unless they have started typing something else meanwhile.
    mine.turn.unsent = true;
    mine.box.classList.add("unsent");
    save();
    if (!input.value) input.value = message;
    showCount();
    if (result.status === 422 && result.error.field === "message") {
      showFieldError(ERROR_TEXTS[result.error.code] || "질문을 보내지 못했어요. 내용을 확인해 주세요.");
    }
  });

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  newButton.addEventListener("click", async () => {
    const forgotten = state.sessionId;
    state = { sessionId: null, turns: [] };
    forget();
    log.replaceChildren();
    input.value = "";
    showCount();
    showFieldError(null);
    if (forgotten) {
      // Forget the profile on the server now, not when the session would expire.
      await fetch("/v1/sessions/" + encodeURIComponent(forgotten), { method: "DELETE" }).catch(() => null);
    }
    status.textContent = "새 대화를 시작했어요.";
    input.focus();
  });

  // ------------------------------------------------------------------ after a reload

  const kept = load();
  if (kept && kept.turns.length) {
    state = kept;
    log.setAttribute("aria-busy", "true"); // the restored turns are not read out one by one
    state.turns.forEach((turn) => show(turn, null));
    log.setAttribute("aria-busy", "false");
    reveal(log.lastElementChild);
  }
})();
