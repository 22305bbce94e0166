/**
 * Walks SQL text once, left to right: literals, quoted identifiers and comments are copied as they
 * are; snippet references are replaced by their (recursively walked) text; `{{param}}` inside a snippet
 * becomes the bound argument; filter tokens are handed to a TokenHandler. Values stay values in the
 * output parts, in the order they appear in the text (which `?` placeholders need).
 */
import { sqlError, type Part } from './dialects.ts';
import { isIdentChar, spanAt, type Dialect } from './lexer.ts';
import { builtInValue, isBuiltInSnippet, looksBuiltIn, type SnippetDefinition, type SqlContext } from './snippets.ts';
import { paramRefsIn, parseFilterToken, parseParamRef, parseSnippetRef, type FilterToken, type SnippetRef } from './syntax.ts';

export interface TokenHandler {
  /** Parts for a token, or null when it is not Cairn syntax after all (it is then left as written). */
  token(token: FilterToken, expr: Part[] | null, written: string): Part[] | null;
}

export interface WalkOptions {
  dialect: Dialect;
  snippets: readonly SnippetDefinition[];
  context: SqlContext | null;
  handler: TokenHandler;
}

interface Frame {
  /** Snippets being expanded, outermost first (for cycle detection). */
  stack: string[];
  /** Arguments of the snippet being expanded, by parameter name. */
  args: Map<string, Part[]> | null;
}

/** Output limits: a snippet used many times in snippets used many times grows exponentially. */
export const MAX_COMPILED_LENGTH = 2_000_000;
export const MAX_SNIPPET_DEPTH = 32;

export class Walker {
  readonly snippetsUsed: string[] = [];
  readonly builtInsUsed: string[] = [];
  private readonly byName: Map<string, SnippetDefinition>;
  private size = 0;

  constructor(private readonly opts: WalkOptions) {
    this.byName = new Map(opts.snippets.map((s) => [s.name, s]));
  }

  walk(text: string, frame: Frame = { stack: [], args: null }): Part[] {
    const out: Part[] = [];
    const dialect = this.opts.dialect;
    let raw = 0;
    const flush = (to: number) => {
      if (to > raw) {
        out.push(text.slice(raw, to));
        this.grow(to - raw);
      }
    };
    let i = 0;
    while (i < text.length) {
      const ch = text[i]!;
      const span = spanAt(text, i, dialect);
      if (span) {
        if (frame.args && span.kind !== 'comment') this.refuseParamsInLiteral(text.slice(i, span.end), frame);
        i = span.end;
        continue;
      }
      let parts: Part[] | null = null;
      let end = i + 1;
      if (ch === '{') {
        const param = frame.args ? parseParamRef(text, i) : null;
        if (param) {
          parts = this.param(param.name, frame);
          end = param.end;
        } else {
          const token = parseFilterToken(text, i, dialect);
          if (token) {
            const expr = token.kind === 'value' ? null : token.bracketed ? this.walk(token.expr, frame) : [token.expr];
            parts = this.opts.handler.token(token, expr, text.slice(i, token.end));
            end = token.end;
          }
        }
      } else if (ch === '[') {
        const ref = parseSnippetRef(text, i);
        if (ref) {
          parts = this.snippet(ref, frame);
          end = ref.end;
        }
      } else {
        this.refusePlaceholder(text, i);
      }
      if (parts) {
        flush(i);
        for (const p of parts) out.push(p);
        this.grow(parts.length);
        i = raw = end;
      } else i++;
    }
    flush(text.length);
    return out;
  }

  private grow(n: number) {
    this.size += n;
    if (this.size > MAX_COMPILED_LENGTH) {
      throw sqlError(`The SQL grows beyond ${MAX_COMPILED_LENGTH} characters once its snippets are expanded.`);
    }
  }

  /** Our placeholders must be the only ones: a user's own `$1` or `?` would take our values. */
  private refusePlaceholder(text: string, i: number) {
    const ch = text[i];
    if (this.opts.dialect === 'postgres' && ch === '$' && /\d/.test(text[i + 1] ?? '') && !isIdentChar(text[i - 1])) {
      const written = /\$\d+/y;
      written.lastIndex = i;
      throw sqlError(`The SQL contains the positional parameter "${written.exec(text)![0]}"; filter values are written with Cairn's {…} syntax instead.`);
    }
    if (this.opts.dialect === 'mysql' && ch === '?') {
      throw sqlError('The SQL contains a "?" outside quotes, which MySQL reads as a placeholder; filter values are written with Cairn\'s {…} syntax instead.');
    }
  }

  private refuseParamsInLiteral(literal: string, frame: Frame) {
    const name = paramRefsIn(literal).find((n) => frame.args!.has(n));
    if (name !== undefined) {
      throw sqlError(
        `Snippet "${frame.stack.at(-1)}": {{${name}}} is inside quotes, where it cannot be bound; write it outside, e.g. 'prefix' || {{${name}}}.`,
      );
    }
  }

  private param(name: string, frame: Frame): Part[] {
    const bound = frame.args!.get(name);
    if (!bound) {
      const known = [...frame.args!.keys()];
      throw sqlError(`Snippet "${frame.stack.at(-1)}" uses {{${name}}}, which is not one of its parameters (${known.join(', ') || 'it has none'}).`);
    }
    return bound;
  }

  private snippet(ref: SnippetRef, frame: Frame): Part[] | null {
    if (isBuiltInSnippet(ref.name)) {
      if (ref.args !== null || ref.argError) throw sqlError(`The built-in snippet [${ref.name}] takes no arguments.`);
      if (!this.builtInsUsed.includes(ref.name)) this.builtInsUsed.push(ref.name);
      return [{ value: builtInValue(ref.name, this.opts.context) }];
    }
    const def = this.byName.get(ref.name);
    if (!def) {
      if (looksBuiltIn(ref.name))
        throw sqlError(
          `[${ref.name}] is not a built-in snippet; the built-ins are CAIRN_USER_EMAIL, CAIRN_USER_FIRSTNAME, CAIRN_USER_LASTNAME, CAIRN_USER_ROLE, CAIRN_DASHBOARD_NAME and CAIRN_DASHBOARD_ID.`,
        );
      return null;
    }
    if (frame.stack.includes(ref.name)) {
      const from = frame.stack.indexOf(ref.name);
      throw sqlError(`The snippets refer to each other in a cycle: ${[...frame.stack.slice(from), ref.name].map((n) => `[${n}]`).join(' → ')}.`);
    }
    if (frame.stack.length >= MAX_SNIPPET_DEPTH) throw sqlError(`Snippets are nested more than ${MAX_SNIPPET_DEPTH} deep at [${ref.name}].`);
    if (ref.argError) throw sqlError(`Snippet [${ref.name}]: ${ref.argError}; arguments are numbers, 'quoted strings', TRUE, FALSE or NULL.`);
    const params = def.params ?? [];
    const given = ref.args ?? [];
    if (given.length !== params.length) {
      const takes = params.length ? `${params.length} argument${params.length > 1 ? 's' : ''} (${params.join(', ')})` : 'no arguments';
      throw sqlError(`Snippet [${ref.name}] takes ${takes}; ${given.length} given.`);
    }
    const args = new Map<string, Part[]>();
    params.forEach((p, n) => {
      const arg = given[n]!;
      if (arg.kind === 'param') {
        if (!frame.args?.has(arg.name)) throw sqlError(`Snippet [${ref.name}]: argument {{${arg.name}}} is not a parameter of the snippet calling it.`);
        args.set(p, frame.args.get(arg.name)!);
      } else {
        if (typeof arg.value === 'string' && arg.value.includes('\u0000')) throw sqlError(`Snippet [${ref.name}]: an argument contains the NUL character.`);
        args.set(p, [{ value: arg.value }]);
      }
    });
    if (!this.snippetsUsed.includes(ref.name)) this.snippetsUsed.push(ref.name);
    return this.walk(def.text, { stack: [...frame.stack, ref.name], args });
  }
}
