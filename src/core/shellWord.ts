// A command line lait prints for the user to run (a hint in an error): each word as a POSIX shell
// reads it back, quoted only when it needs to be. No imports: the start-up path uses it.

/** `token` as one shell word: bare when it is plain, else in single quotes. */
export const shellWord = (token: string): string =>
  /^[A-Za-z0-9_./:=@%+,-]+$/.test(token) ? token : `'${token.replaceAll("'", "'\\''")}'`

/** `lait WORDS...`, each word quoted for the shell when it needs to be. */
export const laitCommandLine = (...words: ReadonlyArray<string>): string => ["lait", ...words].map(shellWord).join(" ")
