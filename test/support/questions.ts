/** An AskUserQuestion input the terminal tests ask: one question, two options, no multi-select. */
export const DATABASE_QUESTION = {
  question: "Which database should I use?",
  header: "Database",
  multiSelect: false,
  options: [
    { label: "PostgreSQL", description: "a server" },
    { label: "SQLite", description: "a file" },
  ],
};
