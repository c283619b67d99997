/**
 * Configure's lint question (src/configure/lint_choice.ts): the flag decides when given, a
 * terminal is asked (default yes), and without one the default is taken without a prompt.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InvalidArgumentError } from '@cairn/core'
import { LINT_QUESTION, lintChoice, lintFromFlag } from '../src/configure/lint_choice.ts'

function asking(answer: boolean) {
  const asked: string[] = []
  return {
    asked,
    confirm: (question: string) => {
      asked.push(question)
      return Promise.resolve(answer)
    },
  }
}

void test('--eslint and --no-eslint decide without asking, in a terminal or not', async () => {
  for (const interactive of [true, false]) {
    const prompt = asking(false)
    assert.equal(await lintChoice({ flag: true, interactive, ...prompt }), 'asked')
    assert.equal(await lintChoice({ flag: false, interactive, ...prompt }), 'declined')
    assert.deepEqual(prompt.asked, [])
  }
})

void test('in a terminal without the flag, the user is asked', async () => {
  const yes = asking(true)
  assert.equal(await lintChoice({ flag: undefined, interactive: true, ...yes }), 'asked')
  assert.deepEqual(yes.asked, [LINT_QUESTION])
  const no = asking(false)
  assert.equal(await lintChoice({ flag: undefined, interactive: true, ...no }), 'declined')
})

void test('without a terminal nor the flag, the default is taken and nothing is asked', async () => {
  const prompt = asking(false)
  assert.equal(await lintChoice({ flag: undefined, interactive: false, ...prompt }), 'default')
  assert.deepEqual(prompt.asked, [])
})

void test('the flag as Ace parses it: boolean, negated, or spelled out; anything else is refused', () => {
  assert.equal(lintFromFlag(undefined), undefined)
  assert.equal(lintFromFlag(true), true)
  assert.equal(lintFromFlag(false), false)
  assert.equal(lintFromFlag('true'), true)
  assert.equal(lintFromFlag('false'), false)
  assert.throws(
    () => lintFromFlag('yes'),
    (error) => InvalidArgumentError.is(error) && /--eslint takes no value/.test(error.message),
  )
})
