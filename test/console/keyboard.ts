import type { Page } from 'playwright-core';

// Checks run in the page. They are JavaScript strings, as the other console tests' are:
// the tests compile without the DOM's types.

/** A control as a failure message names it. */
export interface Stop {
  name: string;
  focusVisible: boolean;
  /** A focus ring a person sees: an outline of 2px or more, or a box-shadow. */
  ringed: boolean;
}

/** What has focus after a Tab: a control (marked `data-tab-stop`), one reached before, or none (the browser's UI). */
const focusedNow = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'outside';
  if (el.hasAttribute('data-tab-stop')) return 'again';
  el.setAttribute('data-tab-stop', '');
  const css = getComputedStyle(el);
  const label = el.getAttribute('aria-label') ??
    ((el.labels && el.labels[0]) || el).textContent.trim().replace(/\\s+/g, ' ').slice(0, 40);
  return {
    name: el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' "' + label + '"',
    focusVisible: el.matches(':focus-visible'),
    ringed: (css.outlineStyle !== 'none' && parseFloat(css.outlineWidth) >= 2) || css.boxShadow !== 'none',
  };
})()`;

/**
 * Presses Tab until focus comes back to a control it already reached, and returns the
 * controls in the order reached (each is marked `data-tab-stop` for `unreached`).
 */
export async function tabAround(page: Page, most = 150): Promise<Stop[]> {
  await page.evaluate(
    "document.querySelectorAll('[data-tab-stop]').forEach((e) => e.removeAttribute('data-tab-stop'))",
  );
  const stops: Stop[] = [];
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate<Stop | 'again' | 'outside'>(focusedNow);
    if (stop === 'again') return stops;
    if (stop !== 'outside') stops.push(stop);
  }
  throw new Error(`Tab never came back around after ${most} presses: ${stops.map((s) => s.name).join(', ')}`);
}

/** The controls on screen that Tab did not reach (call after `tabAround`). */
export function unreached(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`
    [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => !el.disabled && el.getClientRects().length > 0)
      .filter((el) => getComputedStyle(el).visibility !== 'hidden' && !el.closest('[inert], fieldset:disabled'))
      // A radio group is one tab stop: the others are reached with the arrow keys.
      .filter((el) => !(el.type === 'radio' && !el.checked))
      .filter((el) => !el.hasAttribute('data-tab-stop'))
      .map((el) => el.outerHTML.slice(0, 120))
  `);
}

/**
 * Controls a keyboard cannot reach: an element with a role of a control that is not a real
 * one and has no tabindex, or anything drawn with a pointer cursor (so a mouse can click it)
 * that is neither focusable nor inside something focusable or a label.
 */
export function mouseOnly(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const focusable = 'a[href], button, input, select, textarea, summary, label, [tabindex]';
    const real = ['BUTTON', 'A', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY'];
    const roles = '[role=button], [role=link], [role=tab], [role=checkbox], [role=switch], [role=menuitem], [role=option]';
    const badRoles = [...document.querySelectorAll(roles)].filter(
      (el) => !real.includes(el.tagName) && !el.hasAttribute('tabindex'),
    );
    const pointers = [...document.querySelectorAll('body *')].filter(
      (el) => el.getClientRects().length > 0 && getComputedStyle(el).cursor === 'pointer' && !el.closest(focusable),
    );
    return [...badRoles, ...pointers].map((el) => el.outerHTML.slice(0, 120));
  })()`);
}
