import { describe, expect, it } from 'vitest';
import { refuseUnfitAnswers, type Answers } from '../../src/domain/answers.js';
import type { Question } from '../../src/domain/entities.js';
import { BatonError } from '../../src/domain/errors.js';

/** The check every answer to structured questions passes before it is stored (runtime-request.respond). */
const question = (id: string, more: Partial<Question> = {}): Question => ({
  id,
  header: id,
  question: `${id}?`,
  options: null,
  ...more,
});
const choice = (id: string, labels: string[], more: Partial<Question> = {}) =>
  question(id, { options: labels.map((label) => ({ label, description: '' })), ...more });

function refusal(questions: Question[], answers: Answers): string | null {
  try {
    refuseUnfitAnswers(questions, answers);
    return null;
  } catch (e) {
    if (!(e instanceof BatonError) || e.code !== 'invalid_payload') throw e;
    return e.message;
  }
}

describe('answers to structured questions', () => {
  it('what a question does not say is not checked: any text, any number of answers, an unanswered one', () => {
    const qs = [choice('lang', ['TypeScript', 'Rust']), question('why')];
    expect(refusal(qs, { lang: 'Go' })).toBeNull();
    expect(refusal(qs, { lang: ['TypeScript', 'Rust'], why: 'speed' })).toBeNull();
    expect(refusal(qs, {})).toBeNull();
  });

  it('refuses an answer to no question asked', () => {
    expect(refusal([question('why')], { why: 'x', how: 'y' })).toMatch(/no question was asked with the id 'how'/);
  });

  it('refuses a required question left open, as an empty list too', () => {
    const qs = [question('name', { required: true })];
    expect(refusal(qs, {})).toMatch(/'name' .* must be answered/);
    expect(refusal(qs, { name: [] })).toMatch(/must be answered/);
    expect(refusal(qs, { name: 'Ada' })).toBeNull();
  });

  it('refuses several answers where one is taken, and a choice not offered where no answer of its own is', () => {
    const qs = [choice('size', ['S', 'M'], { isOther: false, multiple: false })];
    expect(refusal(qs, { size: ['S', 'M'] })).toMatch(/takes one answer/);
    expect(refusal(qs, { size: 'XL' })).toMatch(/'XL' is not one of the options .*: S, M/);
    expect(refusal(qs, { size: 'M' })).toBeNull();
    const many = [choice('extras', ['a', 'b'], { isOther: false, multiple: true })];
    expect(refusal(many, { extras: ['a', 'b'] })).toBeNull();
    expect(refusal(many, { extras: ['a', 'c'] })).toMatch(/'c' is not one of the options/);
  });

  it('refuses an answer of its own that is not the number asked for; an option is always taken', () => {
    const n = [question('count', { answerType: 'number' })];
    expect(refusal(n, { count: '2.5' })).toBeNull();
    expect(refusal(n, { count: '-1e3' })).toBeNull();
    for (const bad of ['', ' ', 'two', 'Infinity', 'NaN']) expect(refusal(n, { count: bad }), bad).toMatch(/a number/);
    const i = [choice('nights', ['a week'], { answerType: 'integer' })];
    expect(refusal(i, { nights: '3' })).toBeNull();
    expect(refusal(i, { nights: 'a week' })).toBeNull();
    expect(refusal(i, { nights: '2.5' })).toMatch(/a whole number/);
    expect(refusal(i, { nights: '9007199254740993' })).toMatch(/a whole number/);
  });
});
