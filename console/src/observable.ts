import { useEffect, useState } from 'preact/hooks';

/** A value views can watch (connection state, notices): set it, and the views that use it re-render. */
export class Observable<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private current: T) {}

  get value(): T {
    return this.current;
  }

  set(value: T): void {
    if (Object.is(value, this.current)) return;
    this.current = value;
    for (const l of this.listeners) l(value);
  }

  subscribe(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function useObservable<T>(o: Observable<T>): T {
  const [value, setValue] = useState(o.value);
  useEffect(() => {
    setValue(o.value);
    return o.subscribe(setValue);
  }, [o]);
  return value;
}
