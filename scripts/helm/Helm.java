import com.marcnuri.helm.LintCommand;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Helm engine (helm-java: Helm's Go code as a native library) behind a small command line,
 * so scripts/helm.sh can lint and render a chart without a helm binary.
 *
 *   lint CHART [--strict]
 *     prints Helm's lint messages; exits 1 when the lint fails.
 *   template CHART [--release NAME] [--namespace NS] [--kube-version V] [-f VALUES]... [--set K=V]...
 *     prints the rendered manifests; exits 1 with Helm's error (a values.schema.json violation
 *     among them) on stderr.
 */
public final class Helm {
  public static void main(String[] args) {
    if (args.length < 2 || args[1].startsWith("-")) usage("a command and a chart directory are required");
    Path chart = Path.of(args[1]);
    List<String> options = List.of(args).subList(2, args.length);
    try {
      switch (args[0]) {
        case "lint" -> System.exit(lint(chart, options));
        case "template" -> System.out.print(template(chart, options));
        default -> usage("unknown command " + args[0]);
      }
    } catch (IllegalStateException error) {
      // helm-java reports Helm's own error messages this way.
      System.err.println("Error: " + error.getMessage());
      System.exit(1);
    }
  }

  private static int lint(Path chart, List<String> options) {
    LintCommand lint = new com.marcnuri.helm.Helm(chart).lint();
    for (String option : options) {
      if (option.equals("--strict")) lint.strict();
      else usage("unknown lint option " + option);
    }
    LintResult result = lint.call();
    result.getMessages().forEach(System.out::println);
    System.out.println(result.isFailed() ? "lint: FAILED" : "lint: passed");
    return result.isFailed() ? 1 : 0;
  }

  private static String template(Path chart, List<String> options) {
    TemplateCommand template = new com.marcnuri.helm.Helm(chart).template();
    List<String> rest = new ArrayList<>(options);
    while (!rest.isEmpty()) {
      String option = rest.remove(0);
      if (rest.isEmpty()) usage(option + " needs a value");
      String value = rest.remove(0);
      switch (option) {
        case "--release" -> template.withName(value);
        case "--namespace" -> template.withNamespace(value);
        case "--kube-version" -> template.withKubeVersion(value);
        case "-f", "--values" -> template.withValuesFile(Path.of(value));
        case "--set" -> {
          int equals = value.indexOf('=');
          if (equals < 1) usage("--set needs key=value, got " + value);
          template.set(value.substring(0, equals), value.substring(equals + 1));
        }
        default -> usage("unknown template option " + option);
      }
    }
    return template.call();
  }

  private static void usage(String problem) {
    System.err.println("Helm.java: " + problem);
    System.err.println("usage: lint CHART [--strict] | template CHART [--release NAME] [--namespace NS] [--kube-version V] [-f VALUES]... [--set K=V]...");
    System.exit(2);
  }
}
