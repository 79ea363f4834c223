/// The `<head>` every page of the board's web server shares: charset, viewport, the one
/// stylesheet (`/style.css`, `DashboardPage.css`) and an empty icon; only the title differs.
enum PageHead {
    static func html(title: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <link rel="stylesheet" href="/style.css">
        <link rel="icon" href="data:,">
        </head>

        """
    }
}
