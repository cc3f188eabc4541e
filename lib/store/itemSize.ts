/**
 * dynamoItemBytes: an item's size as DynamoDB counts it for write units and storage — each
 * attribute's name plus its value: a string its UTF-8 bytes, a binary its bytes, a number about
 * one byte per two digits plus one, a boolean or null one byte, a list or map 3 bytes plus its
 * elements (1 byte each) and, in a map, their names. Takes the document client's form (plain
 * values, Uint8Array for binary) and the low-level form ({ S: … }, { B: … }) alike; JSON would
 * count a Uint8Array as an object of numbered keys, several times its size.
 */
const TYPE_KEYS: ReadonlySet<string> = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

const isAttributeValue = (value: object): value is Record<string, unknown> => {
  const keys = Object.keys(value);
  return keys.length === 1 && TYPE_KEYS.has(keys[0] ?? '');
};

const numberBytes = (digits: string): number => Math.ceil(digits.replace(/^-|\.|e.*$/gi, '').replace(/^0+/, '').length / 2) + 1;

const valueBytes = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(String(value));
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((sum, element) => sum + valueBytes(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, element) => sum + 1 + valueBytes(element), 0);
  if (typeof value === 'object') {
    if (isAttributeValue(value)) {
      const [type, inner] = Object.entries(value)[0] ?? ['NULL', null];
      if (type === 'N') return numberBytes(String(inner));
      if (type === 'M') return 3 + mapBytes(inner as Record<string, unknown>, 1);
      if (type === 'L' || type === 'SS' || type === 'NS' || type === 'BS') return type === 'L' ? valueBytes(inner) : (inner as unknown[]).reduce<number>((sum, element) => sum + (type === 'NS' ? numberBytes(String(element)) : valueBytes(element)), 0);
      return valueBytes(inner);
    }
    return 3 + mapBytes(value as Record<string, unknown>, 1);
  }
  return Buffer.byteLength(String(value), 'utf8');
};

const mapBytes = (item: Record<string, unknown>, perElement: number): number =>
  Object.entries(item).reduce((sum, [name, value]) => (value === undefined ? sum : sum + perElement + Buffer.byteLength(name, 'utf8') + valueBytes(value)), 0);

export const dynamoItemBytes = (item: Record<string, unknown>): number => mapBytes(item, 0);
