import { Type } from '@mikro-orm/core';
import type { Platform, EntityProperty } from '@mikro-orm/core';

/** numeric as an exact decimal string; MikroORM's decimal compares through Number, missing changes past 15 digits. */
export class DecimalStringType extends Type<string, string> {
  constructor(
    private readonly precision = 38,
    private readonly scale = 18,
  ) {
    super();
  }

  override convertToDatabaseValue(value: string): string {
    return value;
  }

  override convertToJSValue(value: string): string {
    // pg returns numeric as text with the column's scale; keep it as text.
    return typeof value === 'string' ? value : String(value);
  }

  override compareValues(a: string, b: string): boolean {
    return canonical(a) === canonical(b);
  }

  override getColumnType(_prop: EntityProperty, _platform: Platform): string {
    return `numeric(${this.precision},${this.scale})`;
  }

  override compareAsType(): string {
    return 'string';
  }

  override ensureComparable(): boolean {
    return false;
  }
}

/** "1.500" and "1.5" are the same amount. */
function canonical(text: string | null | undefined): string | null | undefined {
  if (typeof text !== 'string' || !text.includes('.')) return text;
  return text.replace(/\.?0+$/, '');
}
