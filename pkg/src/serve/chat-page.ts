// The script of `serve`'s page per chat (a browser module): the elements
// draw the plan and the suggestions from `src`, and the cards follow the
// same event stream; "Open chat" on a started offer opens that chat's page;
// "Delete chat", once confirmed, deletes the chat and goes back to the list.
import "../elements/index.js";
import { follow } from "../elements/live.js";
import type { OdaTodoCardElement } from "../elements/todo-card.js";

const main = document.querySelector<HTMLElement>("main[data-chat-src]");
const list = document.querySelector<HTMLOListElement>("#cards");
if (main !== null && list !== null) {
  const src = main.dataset.chatSrc ?? "";
  const empty = document.querySelector<HTMLElement>("#no-cards");
  follow(src, (screen) => {
    if (screen === null) {
      // Deleted: one notice for the page in place of its panels (no card of it stays on show), and the way back.
      list.replaceChildren();
      for (const gone of Array.from(main.querySelectorAll<HTMLElement>(".columns, .actions"))) gone.hidden = true;
      if (main.querySelector("#deleted") === null) {
        const notice = Object.assign(document.createElement("p"), { id: "deleted", textContent: "This chat was deleted. " });
        notice.setAttribute("role", "status");
        notice.append(Object.assign(document.createElement("a"), { href: "/", textContent: "Your chats" }));
        main.querySelector("h1")?.after(notice);
      }
      return;
    }
    const first = screen.cardCount - screen.cards.length;
    const items = screen.cards.map((card, i) => {
      const item = document.createElement("li");
      const element = document.createElement("oda-todo-card") as OdaTodoCardElement;
      element.card = card;
      element.position = first + i + 1;
      element.total = screen.cardCount;
      item.append(element);
      return item;
    });
    // Newest first: the latest update is what a person looks for.
    list.replaceChildren(...items.reverse());
    if (empty !== null) empty.hidden = screen.cardCount > 0;
  });
  const remove = document.querySelector<HTMLButtonElement>("#delete-chat");
  remove?.addEventListener("click", () => void deleteChat(remove, src));
  document.addEventListener("oda-open-chat", (event) => {
    const { chatId } = (event as CustomEvent<{ chatId: string }>).detail;
    location.assign(`/chats/${encodeURIComponent(chatId)}`);
  });
}

/** Deletes the page's chat once the person confirms, then shows the list of chats; a refusal is said beside the button. */
async function deleteChat(button: HTMLButtonElement, src: string): Promise<void> {
  const chatId = button.dataset.chatId ?? "";
  if (!confirm(`Delete chat "${chatId}"? Its plan, suggestions and updates are erased for good. Chats started from it stay.`)) return;
  button.disabled = true;
  let said = "The chat could not be deleted: the server could not be reached.";
  try {
    const response = await fetch(src, { method: "DELETE", credentials: "same-origin" });
    // Gone either way: deleted now, or already (another tab, another person of the chat's owner).
    if (response.ok || response.status === 404) {
      location.assign("/");
      return;
    }
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    said = `The chat could not be deleted: ${body?.error?.message ?? response.statusText}.`;
  } catch {
    // said above
  }
  button.disabled = false;
  let status = document.querySelector<HTMLElement>("#delete-status");
  if (status === null) {
    status = Object.assign(document.createElement("span"), { id: "delete-status" });
    status.setAttribute("role", "status");
    button.after(" ", status);
  }
  status.textContent = said;
}
