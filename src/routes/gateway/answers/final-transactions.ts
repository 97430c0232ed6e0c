import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isObjectType,
  Kind,
  OperationTypeNode,
  type SelectionSetNode,
} from "graphql";

/**
 * The fields an answer about mined transactions may select and still be kept whole: what the
 * bytes say and where it was mined, true while its block is on the best chain (the chain guard
 * checks on every hit). Left out, so executed every time: `confirmations` and `status` (move with
 * the tip), `fee` and `inputs.prevout` (undo data a pruned node lacks), `block` and `merkleProof`
 * (other upstreams), and any other root field. `__typename` is fixed wherever asked.
 */
const FIXED: Readonly<Record<string, ReadonlySet<string>>> = {
  Query: new Set(["transactions", "transaction"]),
  Transaction: new Set([
    "txid",
    "hash",
    "version",
    "size",
    "vsize",
    "weight",
    "locktime",
    "inputs",
    "outputs",
    "blockhash",
    "blocktime",
    "time",
    "hex",
  ]),
  TxInput: new Set(["index", "coinbase", "txid", "vout", "scriptSig", "witness", "sequence"]),
  TxOutput: new Set(["n", "value", "scriptPubKey"]),
  Amount: new Set(["sats", "btc"]),
  ScriptPubKey: new Set(["asm", "hex", "desc", "type", "address"]),
  ScriptSig: new Set(["asm", "hex"]),
};

/** Directives that decide whether a field runs, not what it answers. */
const INCLUSION = new Set(["skip", "include"]);

/**
 * Whether a query's answer is made of fixed facts about the transactions it looks up at its root
 * (`transactions(txids:)`, `transaction(txid:)`): every field it selects, at any depth — through
 * fragment spreads and inline fragments, aliased or not — is in FIXED for its type. `@skip` and
 * `@include` are not evaluated: a field they may leave out is checked as if it ran, so a
 * variable cannot turn a moving field on in a document found fixed (the cache key holds the
 * variables anyway). Any other directive, a fragment on another type, a mutation or a
 * subscription: not fixed (null). Else the response keys its transactions' `confirmations` are
 * written under, for the caller to keep as placeholders. Whether each transaction is mined deep
 * enough is for the caller, from what the resolvers found (RequestState.rootTransactions).
 */
export function fixedTransactionSelection(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): { confirmations: ReadonlySet<string> } | null {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== OperationTypeNode.QUERY) return null;
  if (operation.directives?.length) return null;
  const queryType = schema.getQueryType();
  if (!queryType) return null;
  // Response keys (alias or name) of the transactions' `confirmations`.
  const confirmations = new Set<string>();
  const fixed = fixedWalk(schema, document, fieldsOf(FIXED), confirmations);
  return fixed(queryType.name, operation.selectionSet) ? { confirmations } : null;
}

/** A transaction's fields that its bytes alone say: true of it wherever and whether it is mined. */
const BYTES: Readonly<Record<string, ReadonlySet<string>>> = {
  ...FIXED,
  Transaction: new Set(
    [...(FIXED.Transaction ?? [])].filter((f) => !["blockhash", "blocktime", "time"].includes(f)),
  ),
};

/**
 * Whether every transaction a query joins below its root (a field of type Transaction, such as a
 * block's `transactions { transaction }`) selects only what its bytes say (BYTES): no confirmations,
 * no placement, nothing from another upstream. Fields above the joins are not judged here (the
 * caller knows where they come from). Same rules as fixedTransactionSelection for fragments and
 * directives.
 */
export function joinsSelectOnlyBytes(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): boolean {
  const operation = getOperationAST(document, operationName);
  const queryType = schema.getQueryType();
  if (!operation || operation.operation !== OperationTypeNode.QUERY || !queryType) return false;
  if (operation.directives?.length) return false;
  const joined = fixedWalk(schema, document, fieldsOf(BYTES), null);
  // Above the joins every field is allowed: this walk looks for the fields of type Transaction.
  const find = fixedWalk(
    schema,
    document,
    () => () => true,
    null,
    (typeName, selectionSet) =>
      typeName === "Transaction" ? joined(typeName, selectionSet) : null,
  );
  return find(queryType.name, operation.selectionSet);
}

/** Which fields of a type a walk allows (null: none, the type is not allowed at all). */
type Allowed = (typeName: string) => ((field: string) => boolean) | null;

const fieldsOf =
  (sets: Readonly<Record<string, ReadonlySet<string>>>): Allowed =>
  (typeName) => {
    const set = sets[typeName];
    return set ? (field) => set.has(field) : null;
  };

/**
 * The walk behind both: whether a selection set on `typeName` selects only fields `allowed` for
 * their types (object types only), through fragments (each walked once per type). `confirmations` collects the response
 * keys of Transaction.confirmations (null: a confirmations is not allowed). `enter` may judge a
 * type's selection itself (true or false) instead of the walk (null: walk it).
 */
function fixedWalk(
  schema: GraphQLSchema,
  document: DocumentNode,
  allowed: Allowed,
  confirmations: Set<string> | null,
  enter: (typeName: string, selectionSet: SelectionSetNode) => boolean | null = () => null,
): (typeName: string, selectionSet: SelectionSetNode) => boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  // Fragments already walked on a type: a spread used in many places is checked once (and a
  // cycle, which validation refuses anyway, cannot loop).
  const walked = new Set<string>();
  const fixed = (typeName: string, selectionSet: SelectionSetNode): boolean => {
    const judged = enter(typeName, selectionSet);
    if (judged !== null) return judged;
    const allowedHere = allowed(typeName);
    const type = schema.getType(typeName);
    if (!allowedHere || !isObjectType(type)) return false;
    for (const selection of selectionSet.selections) {
      if (!onlyInclusion(selection.directives)) return false;
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name === "__typename") continue;
        if (confirmations && typeName === "Transaction" && name === "confirmations") {
          confirmations.add(selection.alias?.value ?? name);
          continue;
        }
        if (!allowedHere(name)) return false;
        const field = type.getFields()[name];
        if (!field) return false;
        if (!selection.selectionSet) continue;
        if (!fixed(getNamedType(field.type).name, selection.selectionSet)) return false;
        continue;
      }
      const condition =
        selection.kind === Kind.INLINE_FRAGMENT
          ? selection.typeCondition?.name.value
          : fragments.get(selection.name.value)?.typeCondition.name.value;
      if (condition !== undefined && condition !== typeName) return false;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!fixed(typeName, selection.selectionSet)) return false;
        continue;
      }
      const fragment = fragments.get(selection.name.value);
      if (!fragment || !onlyInclusion(fragment.directives)) return false;
      const seen = `${fragment.name.value}\u0000${typeName}`;
      if (walked.has(seen)) continue;
      walked.add(seen);
      if (!fixed(typeName, fragment.selectionSet)) return false;
    }
    return true;
  };
  return fixed;
}

function onlyInclusion(directives: readonly { name: { value: string } }[] | undefined): boolean {
  return (directives ?? []).every((d) => INCLUSION.has(d.name.value));
}
