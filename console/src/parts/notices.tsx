import { dismiss, notices } from '../commands.js';
import { useObservable } from '../observable.js';

/** What the API refused, readable, until dismissed. */
export function Notices() {
  const list = useObservable(notices);
  if (list.length === 0) return null;
  return (
    <div class="notices" role="alert">
      {list.map((n) => (
        <div class="notice row spread">
          <span>{n.text}</span>
          <button type="button" class="small" onClick={() => dismiss(n.id)} aria-label="Dismiss">
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}
