import type { ComponentChildren } from 'preact';

/** A labelled select over a fixed set of values (a provider, a runtime mode...), typed by them. */
export function EnumSelect<T extends string>(props: {
  label: ComponentChildren;
  name: string;
  value: T;
  options: readonly T[];
  onChange: (value: T) => void;
  /** How an option reads (default: as is). */
  format?: (value: T) => string;
  inline?: boolean;
}) {
  const { label, name, value, options, onChange, format = (v: T) => v, inline = false } = props;
  return (
    <label class={inline ? 'inline' : undefined}>
      {label}
      <select
        name={name}
        value={value}
        onChange={(e) => {
          const chosen = options.find((o) => o === e.currentTarget.value);
          if (chosen) onChange(chosen);
        }}
      >
        {options.map((o) => (
          <option value={o}>{format(o)}</option>
        ))}
      </select>
    </label>
  );
}
