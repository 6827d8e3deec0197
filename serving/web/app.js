// The student's chat page: no framework, no build step. Everything the server sends is inserted
// as text (never as HTML), and only http(s) links are made clickable.
"use strict";

(function () {
  const UNKNOWN_LABEL = "잘 모르겠어요";
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

  async function post(body) {
    setBusy(true);
    try {
      const response = await fetch("/v1/chat", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await response.json().catch(() => null);
      if (response.ok) {
        sessionId = data.session_id;
        render(data);
        return;
      }
      showError(response, data);
    } catch (e) {
      append(el("div", "msg error", "서버에 연결할 수 없어요. 잠시 후 다시 시도해 주세요."));
    } finally {
      setBusy(false);
    }
  }

  function showError(response, data) {
    const error = (data && data.error) || {};
    let text = error.message || "요청을 처리하지 못했어요.";
    if (response.status === 404 && error.code === "unknown_session") {
      sessionId = null;
      text = "대화가 만료되었어요. 질문을 다시 입력해 주세요.";
    } else if (response.status === 429) {
      const wait = response.headers.get("Retry-After");
      text = "요청이 너무 많아요." + (wait ? " " + wait + "초 후에 다시 시도해 주세요." : "");
    } else if (response.status === 503) {
      text = "아직 자료가 준비되지 않았어요. 잠시 후 다시 시도해 주세요.";
    } else if (response.status >= 500) {
      text = "답변을 만드는 중 문제가 생겼어요. 다시 시도해 주세요.";
    }
    append(el("div", "msg error", text)).firstChild.setAttribute("role", "alert");
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
      choices.push({ value: null, label: UNKNOWN_LABEL, unknown: true });
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
            post({ session_id: sessionId, profile: answers });
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
        if (href) {
          const link = el("a", null, title);
          link.href = href;
          link.target = "_blank";
          link.rel = "noopener noreferrer";
          item.appendChild(link);
        } else {
          item.appendChild(el("span", null, title));
        }
        if (citation.snippet) item.appendChild(el("span", "snippet", citation.snippet));
        list.appendChild(item);
      });
      section.appendChild(list);
      box.appendChild(section);
    }
    append(box);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const message = input.value.trim();
    if (!message || busy) return;
    append(el("div", "msg mine", message));
    input.value = "";
    post({ session_id: sessionId, message: message });
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
