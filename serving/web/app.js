// The student's chat page: no framework, no build step. Everything the server sends is inserted
// as text (never as HTML), and only http(s) links are made clickable.
"use strict";

(function () {
  // "don't know" in the language the question is asked in (an English question gets English ones)
  const UNKNOWN_LABELS = { ko: "잘 모르겠어요", en: "I don't know" };
  const HANGUL = /[\uac00-\ud7a3]/;
  const TIER_LABELS = {
    template: "안내",
    faq: "FAQ 답변",
    documents: "문서 기반 답변",
    fallback: "참고용 일반 답변",
  };

  const log = document.getElementById("log");
  const form = document.getElementById("composer");
  const input = document.getElementById("message");
  const sendButton = document.getElementById("send");
  const newButton = document.getElementById("new-conversation");
  const status = document.getElementById("status");
  const snapshotDialog = document.getElementById("snapshot");
  const SNAPSHOT_PATH = /^\/v1\/sources\/[A-Za-z0-9_-]{1,64}$/;
  const OFFLINE_TEXT = "서버에 연결할 수 없어요. 보내지 못한 질문은 입력창에 남겨 두었어요. 잠시 후 다시 시도해 주세요.";
  // The server's error messages are English for developers; students read these (by error code).
  const ERROR_TEXTS = {
    empty_message: "질문을 입력해 주세요.",
    message_too_long: "질문이 너무 길어요. 1,000자 이내로 줄여 주세요.",
    body_too_large: "보낸 내용이 너무 길어요. 줄여서 다시 보내 주세요.",
    invalid_input: "선택한 답을 처리하지 못했어요. 다시 선택해 주세요.",
    unknown_chunk: "이 출처의 저장된 사본을 찾을 수 없어요. 원문 링크를 이용해 주세요.",
    no_snapshots: "지금 자료에는 저장된 사본이 없어요. 원문 링크를 이용해 주세요.",
    invalid_chunk_id: "이 출처의 저장된 사본을 찾을 수 없어요. 원문 링크를 이용해 주세요.",
  };
  const DEFAULT_ERROR_TEXT = "요청을 처리하지 못했어요. 다시 시도해 주세요.";
  const UNREACHABLE_NOTE = "원문 사이트에 지금 연결할 수 없어 저장해 둔 사본을 보여 드려요.";
  const UNREACHABLE_TITLE = "원문 사이트에 연결할 수 없어 저장된 사본이 열려요";
  // How long the page waits for an original site before calling it unreachable: long enough for a
  // slow but working site, short enough that a click still counts as the student's own (Chromium
  // lets a page open a window for 5 s after a click).
  const PROBE_TIMEOUT_MS = 3000;
  const PROBE_TTL_MS = 2 * 60 * 1000; // a site that was down is asked again after this

  let sessionId = null;
  let busy = false;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function append(node) {
    const item = el("li");
    item.appendChild(node);
    log.appendChild(item);
    // The input bar is sticky at the bottom: keep the newest reply (and its option buttons) above
    // it, not behind it, whatever the bar's height on this screen.
    item.style.scrollMarginBottom = (form.offsetHeight + 8) + "px";
    item.scrollIntoView({ block: "end" });
    return item;
  }

  function setBusy(value) {
    busy = value;
    sendButton.disabled = value;
    status.textContent = value ? "답변을 준비하고 있어요…" : "";
  }

  function safeUrl(url) {
    try {
      const parsed = new URL(url, window.location.href);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch (e) {
      return null;
    }
  }

  // Returns true when the server answered the turn; false when it failed (shown as an error).
  async function post(body) {
    setBusy(true);
    try {
      const response = await fetch("/v1/chat", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await response.json().catch(() => null);
      if (response.ok && data) {
        sessionId = data.session_id;
        render(data);
        return true;
      }
      showError(response, data);
    } catch (e) {
      showAlert(OFFLINE_TEXT);
    } finally {
      setBusy(false);
    }
    return false;
  }

  function showAlert(text) {
    append(el("div", "msg error", text)).firstChild.setAttribute("role", "alert");
  }

  function errorText(response, error) {
    return ERROR_TEXTS[error.code] || (response.status >= 500 ? "답변을 만드는 중 문제가 생겼어요. 다시 시도해 주세요."
                                                               : DEFAULT_ERROR_TEXT);
  }

  function showError(response, data) {
    const error = (data && data.error) || {};
    let text = errorText(response, error);
    if (response.status === 404 && error.code === "unknown_session") {
      sessionId = null;
      text = "대화가 만료되었어요. 질문을 다시 입력해 주세요.";
    } else if (response.status === 429) {
      const wait = response.headers.get("Retry-After");
      text = "요청이 너무 많아요." + (wait ? " " + wait + "초 후에 다시 시도해 주세요." : "");
    } else if (response.status === 503) {
      text = "아직 자료가 준비되지 않았어요. 잠시 후 다시 시도해 주세요.";
    }
    showAlert(text);
  }

  function render(reply) {
    if (reply.type === "ask") {
      renderQuestions(reply.questions || []);
    } else {
      renderAnswer(reply);
    }
  }

  function renderQuestions(questions) {
    const box = el("div", "msg ask");
    const answers = {};
    const groups = [];
    questions.forEach((question) => {
      const group = el("fieldset", "question");
      group.dataset.attribute = question.attribute;
      group.appendChild(el("legend", null, question.question));
      const options = el("div", "options");
      const choices = (question.options || []).map((o) => ({ value: o.value, label: o.label, unknown: false }));
      const unknownLabel = HANGUL.test(question.question || "") ? UNKNOWN_LABELS.ko : UNKNOWN_LABELS.en;
      choices.push({ value: null, label: unknownLabel, unknown: true });
      choices.forEach((choice) => {
        const button = el("button", "option" + (choice.unknown ? " unknown" : ""), choice.label);
        button.type = "button";
        button.setAttribute("aria-pressed", "false");
        button.addEventListener("click", () => {
          if (group.classList.contains("answered") || busy) return;
          answers[question.attribute] = choice.value;
          button.setAttribute("aria-pressed", "true");
          group.classList.add("answered");
          group.querySelectorAll("button").forEach((b) => { b.disabled = true; });
          const next = groups.find((g) => !g.classList.contains("answered"));
          if (next) {
            next.querySelector("button").focus();
          } else {
            input.focus();
            post({ session_id: sessionId, profile: answers }).then((delivered) => {
              // Not delivered (server down): the buttons come back, so the answers can be sent again.
              if (!delivered) groups.forEach((g) => reopen(g, answers));
            });
          }
        });
        options.appendChild(button);
      });
      group.appendChild(options);
      groups.push(group);
      box.appendChild(group);
    });
    append(box);
    if (groups.length) groups[0].querySelector("button").focus();
  }

  function reopen(group, answers) {
    delete answers[group.dataset.attribute];
    group.classList.remove("answered");
    group.querySelectorAll("button").forEach((b) => {
      b.disabled = false;
      b.setAttribute("aria-pressed", "false");
    });
  }

  function tierLabel(reply) {
    if (reply.tier === "documents") {
      return reply.answer_method === "llm" ? "문서를 바탕으로 생성한 답변" : "문서에서 찾은 답변";
    }
    return TIER_LABELS[reply.tier] || "답변";
  }

  function renderAnswer(reply) {
    const box = el("div", "msg answer" + (reply.tier === "fallback" ? " fallback" : ""));
    box.dataset.tier = reply.tier || "";
    box.appendChild(el("span", "tier", tierLabel(reply)));
    if (reply.tier === "fallback" && reply.disclaimer) {
      const warning = el("p", "disclaimer", reply.disclaimer);
      warning.setAttribute("role", "note");
      box.appendChild(warning);
    }
    box.appendChild(el("p", "text", reply.answer));
    if (reply.tier !== "fallback" && reply.disclaimer) {
      box.appendChild(el("p", "note", reply.disclaimer));
    }
    const citations = reply.citations || [];
    if (citations.length) {
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
          saved.href = citation.snapshot;
          saved.addEventListener("click", (event) => {
            event.preventDefault();
            openSnapshot(citation.snapshot);
          });
          item.appendChild(saved);
        }
        if (citation.snippet) item.appendChild(el("span", "snippet", citation.snippet));
        list.appendChild(item);
      });
      section.appendChild(list);
      box.appendChild(section);
    }
    append(box);
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

  // ------------------------------------------------------------------ sending

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const message = input.value.trim();
    if (!message || busy) return;
    const mine = append(el("div", "msg mine", message)).firstChild;
    input.value = "";
    // Questions still open when the student types: the message answers them ("컴퓨터학과요") or
    // asks something else; either way their buttons are done once the server has it.
    const open = Array.from(log.querySelectorAll("fieldset.question:not(.answered)"));
    const delivered = await post({ session_id: sessionId, message: message });
    if (delivered) {
      open.forEach((group) => {
        group.classList.add("answered");
        group.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      });
    } else {
      // Not answered (server down, overloaded, refused): the student's text goes back to the
      // input, unless they have started typing something else meanwhile.
      mine.classList.add("unsent");
      if (!input.value) input.value = message;
    }
  });

  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  newButton.addEventListener("click", async () => {
    const forgotten = sessionId;
    sessionId = null;
    log.replaceChildren();
    if (forgotten) {
      // Forget the profile on the server now, not when the session would expire.
      await fetch("/v1/sessions/" + encodeURIComponent(forgotten), { method: "DELETE" }).catch(() => null);
    }
    status.textContent = "새 대화를 시작했어요.";
    input.focus();
  });
})();
