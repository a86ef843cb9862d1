// What the three elements share: a base class that also loads where there is
// no DOM (server rendering), an element builder, the icons and the stylesheet.
import { STYLES } from "./theme.js";
import { ICONS, type IconName } from "./icons.js";

/**
 * `HTMLElement` where the DOM exists, else a stand-in, so importing the
 * elements on a server (React SSR, Node tests) costs nothing and throws nothing.
 *
 * @example
 * class Mine extends ElementBase {}
 */
export const ElementBase: typeof HTMLElement =
  (globalThis as { HTMLElement?: typeof HTMLElement }).HTMLElement ?? (class {} as unknown as typeof HTMLElement);

/**
 * What the three elements share: a shadow root with the stylesheet, the
 * properties kept when the element upgrades, and one draw on connect.
 *
 * @example
 * class Mine extends AnswerElement { protected readonly fed = ["value"]; protected draw() {} }
 */
export abstract class AnswerElement extends ElementBase {
  protected readonly root: ShadowRoot;
  /** The properties an app feeds (set before the class was defined, they are applied on connect). */
  protected abstract readonly fed: readonly string[];
  #drawn = false;

  constructor() {
    super();
    this.root = shadowWithStyles(this);
  }

  /** On connect: applies the fed properties set before the class was defined, then draws once. */
  connectedCallback(): void {
    upgrade(this, this.fed);
    if (!this.#drawn) this.redraw();
  }

  /** Draws the element from its properties now. */
  protected redraw(): void {
    this.#drawn = true;
    this.draw();
  }

  /** Renders the element's shadow root from its properties. */
  protected abstract draw(): void;
}

type Props = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;
type Child = Node | string | null | undefined | false;

/**
 * Builds an element: `text` sets its text, `on<event>` a listener, anything
 * else an attribute (`true` for an empty one; `null`/`false`/`undefined` none).
 *
 * @example
 * h("button", { type: "button", part: "button", text: "Start" });
 */
export function h(tag: string, props: Props = {}, ...children: (Child | Child[])[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") el.textContent = String(value);
    else if (typeof value === "function") el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

/**
 * An icon, hidden from screen readers: the words next to it say the same.
 *
 * @example
 * h("span", {}, icon("added"), "Added");
 */
export function icon(name: IconName): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", `icon i-${name}`);
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [d, fill] of ICONS[name]) {
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", d);
    if (fill) path.setAttribute("fill", "currentColor");
    else {
      path.setAttribute("fill", "none");
      path.setAttribute("stroke", "currentColor");
    }
    svg.append(path);
  }
  return svg;
}

/**
 * Text for screen readers only.
 *
 * @example
 * hidden("Completed: ");
 */
export function hidden(text: string): HTMLElement {
  return h("span", { class: "vh", text });
}

let sheet: CSSStyleSheet | null | undefined;
/**
 * A shadow root holding the elements' stylesheet: one shared constructed
 * sheet where the browser has them, else a `<style>` of its own.
 *
 * @example
 * class Mine extends ElementBase { readonly root = shadowWithStyles(this); }
 */
export function shadowWithStyles(host: HTMLElement): ShadowRoot {
  const root = host.attachShadow({ mode: "open" });
  if (sheet === undefined) {
    try {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLES);
    } catch {
      sheet = null;
    }
  }
  if (sheet !== null && "adoptedStyleSheets" in root) root.adoptedStyleSheets = [sheet];
  else root.append(h("style", { text: STYLES }));
  return root;
}

/**
 * A heading level from the `heading-level` attribute (1 to 5), else `fallback`.
 *
 * @example
 * headingLevel(document.createElement("oda-plan"), 3); // 3: no heading-level attribute (heading-level="2" gives 2)
 */
export function headingLevel(host: HTMLElement, fallback: number): number {
  const n = Number(host.getAttribute("heading-level"));
  return Number.isInteger(n) && n >= 1 && n <= 5 ? n : fallback;
}

/**
 * Re-renders `root` keeping the keyboard where it was: the control with the
 * same `data-key` gets focus back; if it is gone, `fallback(key)` picks one.
 *
 * @example
 * const root = shadowWithStyles(document.createElement("oda-plan"));
 * keepFocus(root, () => root.replaceChildren(h("button", { "data-key": "start", text: "Start" })), () => root.querySelector("h3"));
 */
export function keepFocus(root: ShadowRoot, draw: () => void, fallback: (key: string) => HTMLElement | null): void {
  const active = root.activeElement as HTMLElement | null;
  const key = active?.dataset.key;
  const open = new Set(Array.from(root.querySelectorAll<HTMLDetailsElement>("details[open]")).map((d) => d.dataset.key));
  draw();
  for (const d of Array.from(root.querySelectorAll<HTMLDetailsElement>("details"))) if (open.has(d.dataset.key)) d.open = true;
  if (key === undefined) return;
  const same = root.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
  (same ?? fallback(key))?.focus();
}

/**
 * Registers `tag` once (a second copy of the package, or a second import, is not an error).
 *
 * @example
 * define("oda-plan", OdaPlanElement);
 */
export function define(tag: string, element: CustomElementConstructor): void {
  const registry = (globalThis as { customElements?: CustomElementRegistry }).customElements;
  if (registry !== undefined && registry.get(tag) === undefined) registry.define(tag, element);
}

/**
 * Re-applies properties set on an element before its class was defined (the
 * instance then held them as own fields, shadowing the accessors).
 *
 * @example
 * class Card extends ElementBase { connectedCallback() { upgrade(this, ["card"]); } }
 */
export function upgrade(el: HTMLElement, names: readonly string[]): void {
  for (const name of names) {
    if (Object.hasOwn(el, name)) {
      const value = (el as unknown as Record<string, unknown>)[name];
      delete (el as unknown as Record<string, unknown>)[name];
      try {
        (el as unknown as Record<string, unknown>)[name] = value;
      } catch (e) {
        // A malformed value set before the element was defined: reported, the property left unset.
        globalThis.reportError(e);
      }
    }
  }
}
