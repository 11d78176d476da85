import path from 'node:path';
import ts from 'typescript';
import {
  COLLECTIONS_SERVICE,
  ContractQuery,
  PAYMENTS_SERVICE,
  WEBHOOKS_SERVICE,
  type MessageClass,
} from '@paygate/contracts';

/**
 * A reader (or any tool that follows imports) goes from the gateway's send to the code that
 * decides the message: the class sent is the one a handler is registered for, and the handler
 * calls the service that runs the domain's process. The checker resolves symbols as tsc does.
 */
const ROOT = path.resolve(__dirname, '../..');
const CONTROLLER = 'libs/gateway/http/src/collections.controller.ts';
const CONTRACTS = 'libs/contracts/src/';
const COLLECTION_PROCESS = 'libs/collections/domain/src/collection-process.ts';

type HandlerDecorator = 'CommandHandler' | 'QueryHandler';
interface Handler {
  decorator: HandlerDecorator;
  declaration: ts.ClassDeclaration;
}

const relative = (node: ts.Node) => path.relative(ROOT, node.getSourceFile().fileName);

function sourceProgram(): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('tsconfig.json does not parse');
  const sources = config.fileNames.filter(
    (file) => /\/(libs|apps)\//.test(file) && !/(\.spec|-test-setup)\.ts$/.test(file),
  );
  return ts.createProgram(sources, config.options);
}

function descendants(node: ts.Node): ts.Node[] {
  const found: ts.Node[] = [];
  const visit = (child: ts.Node) => {
    found.push(child);
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

/** The declaration a name refers to, through its imports and re-exports. */
function declarationOf(checker: ts.TypeChecker, name: ts.Node): ts.Declaration | undefined {
  let symbol = checker.getSymbolAtLocation(name);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations?.[0];
}

function method(file: ts.SourceFile, className: string, name: string): ts.MethodDeclaration {
  const owner = file.statements.find(
    (node): node is ts.ClassDeclaration => ts.isClassDeclaration(node) && node.name?.text === className,
  );
  const found = owner?.members.find(
    (member): member is ts.MethodDeclaration => ts.isMethodDeclaration(member) && member.name.getText() === name,
  );
  if (!found) throw new Error(`${className}.${name} is not in ${file.fileName}`);
  return found;
}

/** The class of the message a method sends: `commands.send(new TheClass(...))`. */
function sentClass(checker: ts.TypeChecker, sender: ts.MethodDeclaration): ts.Declaration | undefined {
  const send = descendants(sender).find(
    (node): node is ts.CallExpression =>
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'send' &&
      ts.isNewExpression(node.arguments[0]),
  );
  return send && declarationOf(checker, (send.arguments[0] as ts.NewExpression).expression);
}

/** Every `@CommandHandler(X)` / `@QueryHandler(X)` class of the sources, by the declaration of X. */
function handlersByMessage(program: ts.Program, checker: ts.TypeChecker): Map<ts.Declaration, Handler[]> {
  const handlers = new Map<ts.Declaration, Handler[]>();
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || !file.fileName.startsWith(ROOT) || file.fileName.includes('/node_modules/')) continue;
    for (const declaration of file.statements.filter(ts.isClassDeclaration)) {
      for (const decorator of ts.getDecorators(declaration) ?? []) {
        const call = decorator.expression;
        if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression)) continue;
        const decoratorName = call.expression.text;
        if (decoratorName !== 'CommandHandler' && decoratorName !== 'QueryHandler') continue;
        const message = declarationOf(checker, call.arguments[0]);
        if (message)
          handlers.set(message, [...(handlers.get(message) ?? []), { decorator: decoratorName, declaration }]);
      }
    }
  }
  return handlers;
}

/** The methods a handler's `execute` calls, as `Class.method` with the file declaring them. */
function calledMethods(checker: ts.TypeChecker, handler: ts.ClassDeclaration): { name: string; file: ts.SourceFile }[] {
  const execute = handler.members.find(
    (member): member is ts.MethodDeclaration => ts.isMethodDeclaration(member) && member.name.getText() === 'execute',
  );
  return descendants(execute ?? handler)
    .filter(
      (node): node is ts.CallExpression => ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression),
    )
    .map((call) => declarationOf(checker, (call.expression as ts.PropertyAccessExpression).name))
    .filter((declaration): declaration is ts.MethodDeclaration => !!declaration && ts.isMethodDeclaration(declaration))
    .map((declaration) => ({
      name: `${(declaration.parent as ts.ClassDeclaration).name?.text}.${declaration.name.getText()}`,
      file: declaration.getSourceFile(),
    }));
}

/** The functions and constants `file` imports that are declared in `target`. */
function valuesImportedFrom(checker: ts.TypeChecker, file: ts.SourceFile, target: string): string[] {
  return file.statements
    .filter(
      (statement): statement is ts.ImportDeclaration =>
        ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly,
    )
    .flatMap((statement) => {
      const bindings = statement.importClause?.namedBindings;
      return bindings && ts.isNamedImports(bindings) ? bindings.elements.filter((element) => !element.isTypeOnly) : [];
    })
    .filter((element) => {
      const declaration = declarationOf(checker, element.name);
      return (
        !!declaration &&
        relative(declaration) === target &&
        (ts.isFunctionDeclaration(declaration) || ts.isVariableDeclaration(declaration))
      );
    })
    .map((element) => element.name.text);
}

describe('the path from a command to the code that decides it (source)', () => {
  jest.setTimeout(120_000);
  let checker: ts.TypeChecker;
  let controller: ts.SourceFile;
  let handlers: Map<ts.Declaration, Handler[]>;

  beforeAll(() => {
    const program = sourceProgram();
    checker = program.getTypeChecker();
    const file = program.getSourceFile(path.join(ROOT, CONTROLLER));
    if (!file) throw new Error(`${CONTROLLER} is not in the program`);
    controller = file;
    handlers = handlersByMessage(program, checker);
  });

  it.each([
    ['initialize', 'CollectionsService.initialize'],
    ['collectForPayment', 'CollectionsService.collectForPayment'],
    ['confirm', 'CollectionsService.confirm'],
  ])('follows CollectionsController.%s by imports to %s, which runs the collection process', (endpoint, useCase) => {
    const sent = sentClass(checker, method(controller, 'CollectionsController', endpoint));
    expect(sent && relative(sent)).toMatch(CONTRACTS);
    const [handler, ...others] = handlers.get(sent!) ?? [];
    expect(others).toEqual([]);
    expect(handler).toMatchObject({ decorator: 'CommandHandler' });
    const called = calledMethods(checker, handler.declaration).find((call) => call.name === useCase);
    expect(called).toBeDefined();
    expect(valuesImportedFrom(checker, called!.file, COLLECTION_PROCESS)).not.toEqual([]);
  });

  it.each(
    [COLLECTIONS_SERVICE, PAYMENTS_SERVICE, WEBHOOKS_SERVICE].flatMap((contract) => Object.entries(contract.messages)),
  )('has one handler for %s, of its kind (a query is handled by a @QueryHandler)', (_name, type: MessageClass) => {
    const registered = [...handlers].filter(
      ([message]) =>
        relative(message).startsWith(CONTRACTS) && (message as ts.ClassDeclaration).name?.text === type.name,
    );
    expect(registered.flatMap(([, found]) => found.map((handler) => handler.decorator))).toEqual([
      type.prototype instanceof ContractQuery ? 'QueryHandler' : 'CommandHandler',
    ]);
  });
});
