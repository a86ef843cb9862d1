// The script of `serve`'s page per chat (a browser module): the elements
// draw the plan and the suggestions from `src`, and the cards follow the
// same event stream; "Open chat" on a started offer opens that chat's page.
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
      // Deleted: the elements say so too; no card of it stays on show.
      list.replaceChildren();
      if (empty !== null) {
        empty.textContent = "This chat was deleted.";
        empty.hidden = false;
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
  document.addEventListener("oda-open-chat", (event) => {
    const { chatId } = (event as CustomEvent<{ chatId: string }>).detail;
    location.assign(`/chats/${encodeURIComponent(chatId)}`);
  });
}
