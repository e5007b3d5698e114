// `lait tset` is a typo of `lait test`, not a question for the model: a one-shot chat whose whole
// PROMPT is one word close to a subcommand's name is refused before any request (exit 2), with the
// way to send it anyway (`lait -- tset`). The rule (docs/cli.md#a-mistyped-subcommand):
//   - the word is letters (and `-`) only, compared in lower case;
//   - it starts with the name's first letter, or with its first two letters swapped (`etst`): people
//     rarely mistype the first key, and ordinary words (`best`, `what`, `that`) differ exactly there;
//   - its Damerau-Levenshtein distance (optimal string alignment: a swap of two neighbours is one
//     edit) to the name is at most 1 for names of up to 5 letters and at most 2 for longer ones.
// The names come from the command tree (src/cli/root.ts's `subcommandNames`), never a list here.
// No imports of Effect: src/cli/app.ts checks this before it builds the command tree.
import { laitCommandLine } from "../core/shellWord.ts"
import { editDistance } from "../core/suggest.ts"

const startsAlike = (word: string, name: string): boolean =>
  word[0] === name[0] || (word[0] === name[1] && word[1] === name[0])

/** The subcommand names `word` is a likely typo of, closest first (empty: it is just a word). */
export const likelyMeant = (word: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (!/^[A-Za-z][A-Za-z-]*$/.test(word)) return []
  const typed = word.toLowerCase()
  const near = names
    .filter((name) => startsAlike(typed, name))
    .map((name) => ({ name, distance: editDistance(typed, name) }))
    .filter(({ name, distance }) => distance <= (name.length <= 5 ? 1 : 2))
  const closest = Math.min(...near.map((n) => n.distance))
  return near.filter((n) => n.distance === closest).map((n) => n.name)
}

/**
 * The refusal of a command line whose PROMPT (`argv[index]`, the one positional) is a mistyped
 * subcommand, or undefined when it is not one. A PROMPT with a space in it is never refused.
 */
export const mistypedSubcommand = (
  argv: ReadonlyArray<string>,
  index: number,
  names: ReadonlyArray<string>
): string | undefined => {
  const word = argv[index]!
  const meant = likelyMeant(word, names)
  if (meant.length === 0) return undefined
  const guesses = meant.map((name) => `'${name}'`).join(" or ")
  // Every flag stays before `--`: after it, a flag would be a prompt too.
  const asPrompt = laitCommandLine(...argv.slice(0, index), ...argv.slice(index + 1), "--", word)
  return `'${word}' is not a command (did you mean ${guesses}?); ` +
    `to send it to the model as a prompt, write: ${asPrompt}`
}
