// A tiny element builder. Everything the panel shows is built with it, so
// text only ever reaches the page through text nodes: nothing the model,
// a tool or a file name says is parsed as HTML.

type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes set verbatim (aria-*, role, title, data-*, type, ...). */
  attrs?: Record<string, string | undefined>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (ev: HTMLElementEventMap[K]) => void }>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props?.class) el.className = props.class;
  for (const [k, v] of Object.entries(props?.attrs ?? {})) {
    if (v !== undefined) el.setAttribute(k, v);
  }
  for (const [k, fn] of Object.entries(props?.on ?? {})) {
    el.addEventListener(k, fn as EventListener);
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

/** A button; every clickable thing in the panel is one. */
export function button(label: string, onClick: (ev: MouseEvent) => void, props: Props = {}): HTMLButtonElement {
  const b = h('button', { ...props, attrs: { type: 'button', ...props.attrs } }, label);
  b.addEventListener('click', onClick);
  return b;
}
