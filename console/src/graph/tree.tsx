import { useRef, useState } from 'preact/hooks';
import type { TreeItem } from './graph-model.js';

interface Visible {
  item: TreeItem;
  parent: string | null;
}

/** The items on screen, in order: those inside a folded item are not. */
function visibleItems(root: TreeItem, expanded: (item: TreeItem) => boolean): Visible[] {
  const out: Visible[] = [];
  const walk = (item: TreeItem, parent: string | null) => {
    out.push({ item, parent });
    if (item.children.length && expanded(item)) for (const c of item.children) walk(c, item.key);
  };
  walk(root, null);
  return out;
}

const allKeys = (item: TreeItem): string[] => [item.key, ...item.children.flatMap(allKeys)];

/**
 * A tree a person folds, by mouse or keyboard (the WAI-ARIA tree pattern): one tab stop;
 * Up and Down move, Right opens or goes in, Left folds or goes out, Home and End, Enter or
 * Space folds and opens. Folding is kept per item across live updates; an item nobody
 * touched follows its `foldedByDefault`.
 */
export function Tree({ root, label }: { root: TreeItem; label: string }) {
  const [chosen, setChosen] = useState(new Map<string, boolean>());
  const [focused, setFocused] = useState<string>(root.key);
  const box = useRef<HTMLUListElement>(null);
  const expanded = (item: TreeItem) => chosen.get(item.key) ?? !item.foldedByDefault;
  const visible = visibleItems(root, expanded);
  const focusKey = visible.some((v) => v.item.key === focused) ? focused : root.key;

  const setOpen = (keys: string[], open: boolean) => {
    const next = new Map(chosen);
    for (const k of keys) next.set(k, open);
    setChosen(next);
  };
  const moveTo = (key: string) => {
    setFocused(key);
    box.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    const i = visible.findIndex((v) => v.item.key === focusKey);
    const here = visible[i];
    if (!here) return;
    const { item } = here;
    const open = item.children.length > 0 && expanded(item);
    const go = (key: string | undefined | null) => key && moveTo(key);
    switch (e.key) {
      case 'ArrowDown':
        go(visible[i + 1]?.item.key);
        break;
      case 'ArrowUp':
        go(visible[i - 1]?.item.key);
        break;
      case 'ArrowRight':
        if (item.children.length && !open) setOpen([item.key], true);
        else go(item.children[0]?.key);
        break;
      case 'ArrowLeft':
        if (open) setOpen([item.key], false);
        else go(here.parent);
        break;
      case 'Home':
        go(visible[0]?.item.key);
        break;
      case 'End':
        go(visible.at(-1)?.item.key);
        break;
      case 'Enter':
      case ' ':
        if (item.children.length) setOpen([item.key], !open);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const render = (item: TreeItem, level: number, pos: number, size: number) => {
    const hasChildren = item.children.length > 0;
    const open = hasChildren && expanded(item);
    return (
      <li
        key={item.key}
        role="treeitem"
        aria-level={level}
        aria-posinset={pos}
        aria-setsize={size}
        aria-expanded={hasChildren ? open : undefined}
        aria-selected={item.key === focusKey}
        tabIndex={item.key === focusKey ? 0 : -1}
        data-key={item.key}
        data-kind={item.kind}
        data-id={item.id ?? undefined}
        data-status={item.status ?? undefined}
        class={`gv-item is-${item.kind}`}
        onFocus={(e) => {
          if (e.target === e.currentTarget) setFocused(item.key);
        }}
      >
        <div class="gv-row">
          {hasChildren ? (
            <span
              class="gv-toggle"
              aria-hidden="true"
              onClick={(e) => {
                e.stopPropagation();
                setOpen([item.key], !open);
                moveTo(item.key);
              }}
            >
              {open ? '▾' : '▸'}
            </span>
          ) : (
            <span class="gv-toggle is-leaf" aria-hidden="true">
              ·
            </span>
          )}
          <span class="gv-title">{item.title}</span>
          {item.status && <span class={`gv-status is-${item.status}`}>{item.status.replace(/_/g, ' ')}</span>}
          {item.detail && <span class="gv-detail">{item.detail}</span>}
          {hasChildren && !open && <span class="gv-detail">({item.children.length} inside)</span>}
        </div>
        {open && <ul role="group">{item.children.map((c, i) => render(c, level + 1, i + 1, item.children.length))}</ul>}
      </li>
    );
  };

  return (
    <div class="gv-tree-box">
      <div class="gv-tools">
        <button type="button" onClick={() => setOpen(allKeys(root), true)}>
          Unfold all
        </button>
        <button
          type="button"
          onClick={() =>
            setOpen(
              allKeys(root).filter((k) => k !== root.key),
              false,
            )
          }
        >
          Fold all
        </button>
      </div>
      <ul class="gv-tree" role="tree" aria-label={label} ref={box} onKeyDown={onKey}>
        {render(root, 1, 1, 1)}
      </ul>
    </div>
  );
}
