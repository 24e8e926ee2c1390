import type { Problem } from '#shared/errors';
import { el } from '../dashboard/panel';
import { ProblemError } from '../model/api';
import { fieldFor } from '../model/location-form';

/** The admin screen's form parts: fields bound to a JSON Pointer of the body, and the API's errors placed at them. */

let uid = 0;
export const nextId = (stem: string) => `admin-${stem}-${++uid}`;

/** One labelled input bound to a JSON Pointer of the body: its errors are shown under it. */
export function field(
  label: string,
  value: string,
  pointer: string,
  onInput: (v: string) => void,
  options: { hint?: string; inputmode?: string; width?: 'narrow' } = {},
): HTMLElement {
  const id = nextId('f');
  const input = el('input', { id, value, autocomplete: 'off', spellcheck: false });
  input.dataset.pointer = pointer;
  if (options.inputmode) input.inputMode = options.inputmode;
  const error = el('p', { id: `${id}-error`, className: 'error', hidden: true });
  error.dataset.errorFor = pointer;
  const hint = options.hint ? el('p', { id: `${id}-hint`, className: 'hint' }, options.hint) : undefined;
  input.setAttribute('aria-describedby', [hint?.id, error.id].filter(Boolean).join(' '));
  input.addEventListener('input', () => onInput(input.value));
  return el(
    'div',
    { className: `field${options.width ? ` ${options.width}` : ''}` },
    el('label', { htmlFor: id }, label),
    input,
    ...(hint ? [hint] : []),
    error,
  );
}

export function messageOf(e: unknown): string {
  return e instanceof ProblemError
    ? `${e.problem.title}: ${e.problem.detail}`
    : `The service could not be reached: ${e instanceof Error ? e.message : String(e)}`;
}

export function clear(form: HTMLElement, summary: HTMLElement): void {
  for (const error of form.querySelectorAll<HTMLElement>('[data-error-for]')) {
    error.hidden = true;
    error.textContent = '';
  }
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  summary.hidden = true;
  summary.textContent = '';
}

/** The problem's summary for the form, and each of its `errors` at the field its path belongs to. */
export function place(form: HTMLElement, summary: HTMLElement, e: unknown): void {
  const problem: Problem | undefined = e instanceof ProblemError ? e.problem : undefined;
  summary.hidden = false;
  summary.textContent = messageOf(e);
  const pointers = [...form.querySelectorAll<HTMLElement>('[data-error-for]')].map((p) => p.dataset.errorFor as string);
  for (const error of problem?.errors ?? []) {
    const pointer = fieldFor(pointers, error.path);
    const target =
      pointer === undefined ? undefined : form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(pointer)}"]`);
    if (!target) {
      summary.append(el('p', {}, `${error.path}: ${error.message}`));
      continue;
    }
    target.hidden = false;
    target.textContent = target.textContent ? `${target.textContent} ${error.message}` : error.message;
    form.querySelector(`[data-pointer="${CSS.escape(pointer!)}"]`)?.setAttribute('aria-invalid', 'true');
  }
  summary.focus?.();
}
