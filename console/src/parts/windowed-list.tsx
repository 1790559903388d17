import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

interface Props<T> {
  items: readonly T[];
  keyOf: (item: T) => string;
  render: (item: T) => ComponentChildren;
  /** A first guess at a row's height, until it is measured. */
  estimate?: number;
  /** Pixels rendered beyond the visible area, above and below. */
  overscan?: number;
  label: string;
}

/**
 * A scrolling list that renders only the rows in (and near) view: a long thread costs what
 * a screenful does. Rows have any height: each is measured once shown and remembered by
 * key; the rest are guessed. It follows the bottom while the reader is there (new items and
 * streaming text stay in view) and stays put when they have scrolled up.
 */
export function WindowedList<T>({ items, keyOf, render, estimate = 90, overscan = 800, label }: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const atBottom = useRef(true);
  const [view, setView] = useState({ top: 0, height: 800 });
  const [, setMeasured] = useState(0);

  const keys = items.map(keyOf);
  const offsets = new Array<number>(items.length + 1);
  offsets[0] = 0;
  for (let i = 0; i < items.length; i++) offsets[i + 1] = offsets[i]! + (heights.current.get(keys[i]!) ?? estimate);
  const total = offsets[items.length]!;
  let first = 0;
  while (first < items.length && offsets[first + 1]! < view.top - overscan) first++;
  let last = first;
  while (last < items.length && offsets[last]! < view.top + view.height + overscan) last++;

  // Measure what was rendered; a changed height re-renders (offsets move), then pin the bottom.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    let changed = false;
    for (const row of el.querySelectorAll<HTMLElement>(':scope > .wl-inner > [data-key]')) {
      const key = row.dataset.key!;
      const h = row.offsetHeight;
      if (heights.current.get(key) !== h) {
        heights.current.set(key, h);
        changed = true;
      }
    }
    if (changed) setMeasured((n) => n + 1);
    if (atBottom.current) el.scrollTop = el.scrollHeight;
  });

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const onScroll = () => {
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      setView({ top: el.scrollTop, height: el.clientHeight });
    };
    const resize = new ResizeObserver(onScroll);
    resize.observe(el);
    el.addEventListener('scroll', onScroll, { passive: true });
    onScroll();
    return () => {
      resize.disconnect();
      el.removeEventListener('scroll', onScroll);
    };
  }, []);

  return (
    <div class="wl" ref={box} role="list" aria-label={label} tabIndex={0}>
      <div class="wl-inner" style={{ height: `${total}px` }}>
        <div class="wl-spacer" style={{ height: `${offsets[first]}px` }} />
        {items.slice(first, last).map((item, i) => (
          <div key={keys[first + i]} data-key={keys[first + i]} role="listitem" class="wl-row">
            {render(item)}
          </div>
        ))}
      </div>
    </div>
  );
}
