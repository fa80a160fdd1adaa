import type { z } from 'zod';

/** One environment variable, declared once: the `Settings` type, the validation and docs/configuration.md derive from it. */
export class Setting<Schema extends z.ZodType = z.ZodType> {
  constructor(
    readonly variable: string,
    readonly schema: Schema,
    /** One line of Markdown for the reference's "meaning" column. */
    readonly description: string,
    /** Never repeated in a message: a key, a token, or a URL that may carry a password. */
    readonly secret: boolean,
    /** The reference's "default" column when the schema's own default does not say it (e.g. "embedded Postgres"). */
    readonly shownDefault: string | undefined,
    /** How the reference names it: EVM_RPC_URL_<NETWORK> for every network's EVM_RPC_URL_…. */
    readonly documentedAs: string,
  ) {}
}

export interface SettingOptions {
  secret?: boolean;
  shownDefault?: string;
}

export function setting<Schema extends z.ZodType>(
  variable: string,
  schema: Schema,
  description: string,
  { secret = false, shownDefault }: SettingOptions = {},
): Setting<Schema> {
  return new Setting(variable, schema, description, secret, shownDefault, variable);
}

/** Settings grouped as the code reads them: `settings.codecEndpoint.port`, `settings.development.dataDir`. */
export interface SettingsTree {
  readonly [key: string]: Setting | SettingsTree;
}

/** What a tree of settings holds once read: each Setting replaced by its schema's output. */
export type ValuesOf<Tree> = {
  -readonly [Key in keyof Tree]: Tree[Key] extends Setting<infer Schema> ? z.output<Schema> : ValuesOf<Tree[Key]>;
};

/** A declared variable and where it sits in the tree. */
export interface DeclaredSetting {
  readonly path: readonly string[];
  readonly setting: Setting;
}

/** Every Setting of the tree, in declaration order. */
export function settingsIn(tree: SettingsTree, path: readonly string[] = []): DeclaredSetting[] {
  return Object.entries(tree).flatMap(([key, node]) =>
    node instanceof Setting ? [{ path: [...path, key], setting: node }] : settingsIn(node, [...path, key]),
  );
}

/** The tree's shape filled with the values read for its variables. */
export function valuesOf<Tree extends SettingsTree>(tree: Tree, read: Readonly<Record<string, unknown>>): ValuesOf<Tree> {
  const values = Object.fromEntries(
    Object.entries(tree).map(([key, node]) => [key, node instanceof Setting ? read[node.variable] : valuesOf(node, read)]),
  );
  return values as ValuesOf<Tree>;
}

/** A copy of a group declared with a placeholder (EVM_RPC_URL_<NETWORK>) for one instance (EVM_RPC_URL_ETHEREUM). */
export function instanceOf<Tree extends SettingsTree>(tree: Tree, placeholder: string, value: string): Tree {
  const copy = Object.fromEntries(
    Object.entries(tree).map(([key, node]) => [
      key,
      node instanceof Setting
        ? new Setting(
            node.variable.replaceAll(placeholder, value),
            node.schema,
            node.description,
            node.secret,
            node.shownDefault,
            node.documentedAs,
          )
        : instanceOf(node, placeholder, value),
    ]),
  );
  return copy as Tree;
}

/** The default a variable takes when unset, as the reference shows it. */
export function shownDefaultOf(setting: Setting): string {
  if (setting.shownDefault !== undefined) return setting.shownDefault;
  const unset = setting.schema.safeParse(undefined);
  if (!unset.success) throw new Error(`${setting.variable} has no default: say what happens when it is unset (shownDefault)`);
  const value: unknown = unset.data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '(none)';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return `\`${String(value)}\``;
  }
  throw new Error(`${setting.variable}: its default is not a plain value: say it in words (shownDefault)`);
}

/** What the tree holds when none of its variables is set. */
export function defaultsOf<Tree extends SettingsTree>(tree: Tree): ValuesOf<Tree> {
  return valuesOf(tree, Object.fromEntries(settingsIn(tree).map(({ setting }) => [setting.variable, setting.schema.parse(undefined)])));
}
