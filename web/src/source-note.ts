import { type AnswerSource, describeSource } from './model/source';

/**
 * Says beside the result whether rollups answered it ("Accelerated") or why not, in words (a label
 * and a sentence, never a colour alone); hidden when the service said nothing (rollups off).
 */
export function showSource(note: HTMLElement, source: AnswerSource | undefined): void {
  note.hidden = source === undefined;
  note.dataset.source = source?.source ?? '';
  const [label, text] = [note.querySelector('strong'), note.querySelector('span')];
  const said = source ? describeSource(source) : { label: '', text: '' };
  if (label) label.textContent = said.label;
  if (text) text.textContent = said.text;
}
