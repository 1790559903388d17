import { connectionState } from '../connection.js';
import { useObservable } from '../observable.js';

const text = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  offline: 'Offline: Baton is not reachable, retrying',
} as const;

/** The connection as it stands, always visible, announced when it changes. */
export function ConnectionBadge() {
  const state = useObservable(connectionState);
  return (
    <span class={`connection connection-${state}`} role="status" aria-live="polite" data-state={state}>
      <span class="dot" aria-hidden="true" />
      {text[state]}
    </span>
  );
}
