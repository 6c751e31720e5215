/** A question of the chat benchmark (bench/chat.ts) and of its question sets (chat-heldout, chat-fresh, chat-blind*). */
export type QType = 'who' | 'when' | 'how much' | 'how many' | 'percent' | 'where' | 'what' | 'which';

export interface Question {
  q: string;
  type: QType;
  /** the answer must contain one of these (case-insensitive, whitespace collapsed); empty: no document answers it, and only a refusal is right */
  expect: string[];
  /** corpus id of the document that states it */
  doc: string;
  /** other documents that state it as well (a citation of any of them counts) */
  also?: string[];
}
