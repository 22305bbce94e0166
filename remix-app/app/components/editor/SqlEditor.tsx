/**
 * The SQL editor: CodeMirror 6 with the datasource's dialect, completion of tables and columns from its
 * schema, of `{…}` filter variables and `[…]` snippet names, and Ctrl/⌘+Enter to run. Loaded lazily
 * (ReportEditor imports it with React.lazy), so no other page carries CodeMirror.
 */
import { useEffect, useImperativeHandle, useLayoutEffect, useRef, type Ref } from 'react';
import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  closeCompletion,
  completionKeymap,
  type CompletionContext,
  type CompletionResult,
  type CompletionSource,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import {
  keywordCompletionSource,
  MariaSQL,
  MSSQL,
  MySQL,
  PLSQL,
  PostgreSQL,
  schemaCompletionSource,
  sql,
  StandardSQL,
  type SQLDialect,
  type SQLNamespace,
} from '@codemirror/lang-sql';
import { Compartment, EditorSelection, EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  MatchDecorator,
  placeholder,
  ViewPlugin,
  type DecorationSet,
  type ViewUpdate,
} from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import { completeAt, type SnippetInfo, type SqlDialectName, type SqlNamespace, type VariableInfo } from '../../lib/editor-completion';

const DIALECTS: Record<SqlDialectName, SQLDialect> = { PostgreSQL, MySQL, MariaSQL, MSSQL, PLSQL, StandardSQL };

export interface SqlEditorHandle {
  /** Replaces the selection with `text` and focuses the editor. */
  insert(text: string): void;
  /** The selected range, or null when nothing is selected. */
  selection(): { from: number; to: number } | null;
  focus(): void;
  /** Puts the cursor on a line (1-based) and column. */
  goTo(line: number, column: number): void;
}

export interface SqlEditorProps {
  value: string;
  onChange(value: string): void;
  dialect: SqlDialectName;
  namespace: SqlNamespace;
  variables: VariableInfo[];
  snippets: SnippetInfo[];
  onRun(): void;
  /** The line the database's error points at (1-based), marked in the editor. */
  errorLine?: number | null;
  label: string;
  handle?: Ref<SqlEditorHandle | null>;
}

/** Colours from CSS variables, so light and dark mode both work. */
const highlight = HighlightStyle.define([
  { tag: t.keyword, color: 'var(--cm-keyword)', fontWeight: '600' },
  { tag: [t.string, t.special(t.string)], color: 'var(--cm-string)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--cm-number)' },
  { tag: [t.lineComment, t.blockComment], color: 'var(--cm-comment)', fontStyle: 'italic' },
  { tag: [t.typeName, t.standard(t.name)], color: 'var(--cm-type)' },
  { tag: [t.operator, t.punctuation, t.bracket], color: 'var(--cm-punct)' },
  { tag: [t.special(t.name), t.propertyName], color: 'var(--cm-name)' },
]);

const variableMark = Decoration.mark({ class: 'cm-cairn-variable' });
const snippetMark = Decoration.mark({ class: 'cm-cairn-snippet' });

/** `{…}` filter syntax and `[known_snippet]` stand out from the SQL. */
function cairnSyntax(snippetNames: Set<string>): Extension {
  const decorator = new MatchDecorator({
    regexp: /\{[^{}\n]*\}|\[([A-Za-z_][A-Za-z0-9_]*)(?:\([^\]\n]*\))?\]/g,
    decoration: (m) => (m[0].startsWith('{') ? variableMark : snippetNames.has(m[1] ?? '') || /^CAIRN_/.test(m[1] ?? '') ? snippetMark : null),
  });
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = decorator.createDeco(view);
      }
      update(u: ViewUpdate) {
        this.decorations = decorator.updateDeco(u, this.decorations);
      }
    },
    { decorations: (v) => v.decorations },
  );
}

const setErrorLine = StateEffect.define<number | null>();
const errorLineField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    for (const e of tr.effects) {
      if (!e.is(setErrorLine)) continue;
      const n = e.value;
      if (n === null || n < 1 || n > tr.state.doc.lines) return Decoration.none;
      return Decoration.set([Decoration.line({ class: 'cm-cairn-error-line' }).range(tr.state.doc.line(n).from)]);
    }
    return tr.docChanged ? Decoration.none : deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Cairn's `{…}` and `[…]` completion first; elsewhere the dialect's keywords and the schema. */
function completionSource(dialect: SQLDialect, namespace: SqlNamespace, variables: VariableInfo[], snippets: SnippetInfo[]): CompletionSource {
  const schema = schemaCompletionSource({ dialect, schema: namespace as unknown as SQLNamespace });
  const keywords = keywordCompletionSource(dialect, false);
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const line = ctx.state.doc.lineAt(ctx.pos);
    const answer = completeAt(line.text.slice(0, ctx.pos - line.from), variables, snippets);
    if (answer) return { from: line.from + answer.from, options: answer.options, validFor: answer.validFor };
    const fromSchema = await schema(ctx);
    if (fromSchema && fromSchema.options.length) {
      const fromKeywords = ctx.matchBefore(/\.\w*$/) ? null : await keywords(ctx);
      if (!fromKeywords || fromKeywords.from !== fromSchema.from) return fromSchema;
      return { ...fromSchema, options: [...fromSchema.options, ...fromKeywords.options] };
    }
    return keywords(ctx);
  };
}

export default function SqlEditor(props: SqlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const language = useRef(new Compartment());
  const completion = useRef(new Compartment());
  const marks = useRef(new Compartment());

  useImperativeHandle(
    props.handle,
    () => ({
      insert(text: string) {
        const v = view.current;
        if (!v) return;
        v.dispatch(
          v.state.changeByRange((range) => ({
            changes: { from: range.from, to: range.to, insert: text },
            range: EditorSelection.cursor(range.from + text.length),
          })),
        );
        v.focus();
      },
      selection() {
        const r = view.current?.state.selection.main;
        return r && !r.empty ? { from: r.from, to: r.to } : null;
      },
      focus() {
        view.current?.focus();
      },
      goTo(lineNo: number, column: number) {
        const v = view.current;
        if (!v) return;
        const line = v.state.doc.line(Math.max(1, Math.min(v.state.doc.lines, lineNo)));
        const pos = Math.min(line.to, line.from + Math.max(0, column - 1));
        v.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
        v.focus();
      },
    }),
    [],
  );

  useEffect(() => {
    const p = latest.current;
    const dialect = DIALECTS[p.dialect];
    const state = EditorState.create({
      doc: p.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        syntaxHighlighting(highlight),
        placeholder('SELECT …   (Ctrl+Enter runs the query)'),
        keymap.of([
          { key: 'Mod-Enter', preventDefault: true, run: (v) => (closeCompletion(v), latest.current.onRun(), true) },
          ...closeBracketsKeymap,
          ...defaultKeymap,
          ...historyKeymap,
          ...completionKeymap,
          indentWithTab,
        ]),
        language.current.of(sql({ dialect })),
        completion.current.of(autocompletion({ override: [completionSource(dialect, p.namespace, p.variables, p.snippets)], icons: false })),
        marks.current.of(cairnSyntax(new Set(p.snippets.map((s) => s.name)))),
        errorLineField,
        EditorView.updateListener.of((u) => {
          if (u.docChanged) latest.current.onChange(u.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ 'aria-label': p.label, 'data-testid': 'sql-editor-content' }),
        EditorView.lineWrapping,
      ],
    });
    const v = new EditorView({ state, parent: host.current! });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
  }, []);

  // The dialect, the schema, the filters or the snippets changed: reconfigure, keep the text.
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const dialect = DIALECTS[props.dialect];
    v.dispatch({
      effects: [
        language.current.reconfigure(sql({ dialect })),
        completion.current.reconfigure(
          autocompletion({ override: [completionSource(dialect, props.namespace, props.variables, props.snippets)], icons: false }),
        ),
        marks.current.reconfigure(cairnSyntax(new Set(props.snippets.map((s) => s.name)))),
      ],
    });
  }, [props.dialect, props.namespace, props.variables, props.snippets]);

  // A value set from outside (e.g. a reset) replaces the text. A layout effect, so it runs at commit,
  // while `props.value` is still the editor's latest text: Preact runs a pending `useEffect` just
  // before the component's next render, and with text typed in between, this comparison saw an older
  // value, put it back, whose onChange re-rendered with the newer one, and so on without end (the
  // report editor's hang, ARCHITECTURE.md D24). For a typed change the text equals the value either
  // way, so with React only the moment an outside value lands changes (before paint, not after).
  useLayoutEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== props.value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: props.value } });
  }, [props.value]);

  useEffect(() => {
    view.current?.dispatch({ effects: setErrorLine.of(props.errorLine ?? null) });
  }, [props.errorLine]);

  return <div ref={host} className="sql-editor" data-testid="sql-editor" data-dialect={props.dialect} />;
}
