// A stream's text, choice by choice, goes through stages that may hold some of it back.

/** A text filter that sees a stream's text in pieces: `push` returns what can be passed on now, `end` the rest. */
export interface TextStage {
  push(piece: string): string;
  end(): string;
}

/** Stages run one after the other as one stage. */
export function chainStages(stages: readonly TextStage[]): TextStage {
  return {
    push: (piece) => stages.reduce((text, st) => (text === '' ? '' : st.push(text)), piece),
    end: () => stages.reduce((text, st) => (text === '' ? '' : st.push(text)) + st.end(), ''),
  };
}
