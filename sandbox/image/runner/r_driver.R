# Threadlab's R session: a long-lived R process (uid 1000, started by the supervisor through
# language_session.py) that evaluates each cell in the global environment, like Python's kernel.py.
#
# Commands come in one JSON object a line on the commands pipe, frames go out on the frames pipe
# (THREADLAB_KERNEL_FDS); stdout and stderr are the pipes the supervisor reads as the run's output. The user's
# code runs in this process and can reach both pipes: everything written there is a claim the supervisor
# checks (kernel_link.py). Frames: `ready` once, then per run `started` (the supervisor interrupts only
# between `started` and `done`), `display` (the last visible value, each plot page as PNG) and `done`.
local({
  fds <- as.integer(strsplit(Sys.getenv("THREADLAB_KERNEL_FDS"), ",", fixed = TRUE)[[1]])
  Sys.unsetenv("THREADLAB_KERNEL_FDS")
  tl <- new.env(parent = baseenv())
  tl$commands <- file(sprintf("/dev/fd/%d", fds[[1]]), open = "r")
  tl$frames <- file(sprintf("/dev/fd/%d", fds[[2]]), open = "w")
  tl$plot_dir <- tempfile("threadlab-plots-")
  dir.create(tl$plot_dir, mode = "0700")
  tl$devices <- integer()
  tl$titles <- list()
  tl$text_cap <- 256L * 1024L
  # The user's code sees a clean global environment: the driver lives in this closure. Cells are evaluated
  # through .tl_eval, which also marks where the user's frames start in a traceback.
  .tl_eval <- function(expr) eval(expr, .GlobalEnv)

  tl$send <- function(frame) {
    writeLines(jsonlite::toJSON(frame, auto_unbox = TRUE, null = "null", digits = NA), tl$frames, useBytes = TRUE)
    flush(tl$frames)
  }

  tl$clip <- function(text) {
    if (nchar(text, type = "bytes") <= tl$text_cap) return(text)
    half <- tl$text_cap %/% 2L
    paste0(substr(text, 1L, half), sprintf("\n[... %d characters elided ...]\n", nchar(text) - tl$text_cap),
           substr(text, nchar(text) - half + 1L, nchar(text)))
  }

  # Plots: every new page of a device opened by a plotting call goes to a PNG file of its own (%03d);
  # when the run ends each one comes back as a display, like a matplotlib figure.
  tl$open_device <- function(...) {
    grDevices::png(file.path(tl$plot_dir, sprintf("plot-%d-%%03d.png", length(tl$devices) + 1L)),
                   width = 700, height = 500, res = 96, type = "cairo")
    grDevices::dev.control("enable")  # keeps the display list, where base graphics' title is read
    tl$devices <- c(tl$devices, grDevices::dev.cur())
  }
  options(device = tl$open_device, bitmapType = "cairo", warn = 1)

  # A ggplot's labels name the page it draws (the alt text); base graphics' title() is looked up below.
  tl$note_ggplot <- function(plot) {
    labels <- tryCatch(plot$labels, error = function(e) NULL)
    if (is.null(labels)) return(invisible())
    tl$titles[[length(tl$titles) + 1L]] <- list(device = grDevices::dev.cur(), labels = labels)
  }
  # ggplot2's print method is wrapped when the package loads, so a plot printed anywhere in a cell is named.
  setHook(packageEvent("ggplot2", "onLoad"), function(...) {
    namespace <- asNamespace("ggplot2")
    for (generic in c("print", "plot")) {
      local({
        drawn <- utils::getS3method(generic, "ggplot", envir = namespace)
        registerS3method(generic, "ggplot", function(x, ...) {
          result <- drawn(x, ...)
          tl$note_ggplot(x)
          invisible(result)
        }, envir = namespace)
      })
    }
  })

  tl$base_title <- function() {
    # The display list of a base-graphics page holds the calls that drew it; title(main = ...) and the
    # `main` of plot() end up as a C_title call whose first argument is the title.
    found <- list()
    tryCatch({
      for (entry in grDevices::recordPlot()[[1]]) {
        args <- entry[[2]]
        if (length(args) >= 5L && is.list(args[[1]]) && identical(args[[1]]$name, "C_title")) {
          main <- args[[2]]; xlab <- args[[4]]; ylab <- args[[5]]
          if (is.character(main) && length(main) && is.null(found$title)) found$title <- main[[1]]
          if (is.character(xlab) && length(xlab) && is.null(found$xlabel)) found$xlabel <- xlab[[1]]
          if (is.character(ylab) && length(ylab) && is.null(found$ylabel)) found$ylabel <- ylab[[1]]
        }
      }
    }, error = function(e) NULL)
    found
  }

  tl$flush_plots <- function(id) {
    meta <- list()
    for (dev in tl$devices) {
      if (dev %in% grDevices::dev.list()) {
        grDevices::dev.set(dev)
        meta[[as.character(dev)]] <- tl$base_title()
        grDevices::dev.off(dev)
      }
    }
    for (t in tl$titles) {
      labels <- t$labels
      meta[[as.character(t$device)]] <- Filter(Negate(is.null), list(
        title = if (is.character(labels$title)) labels$title[[1]],
        xlabel = if (is.character(labels$x)) labels$x[[1]],
        ylabel = if (is.character(labels$y)) labels$y[[1]]))
    }
    files <- sort(list.files(tl$plot_dir, pattern = "^plot-.*\\.png$", full.names = TRUE))
    for (path in files) {
      size <- file.size(path)
      if (!is.na(size) && size > 0) {
        png <- readBin(path, "raw", size)
        device <- sub("^plot-([0-9]+)-.*$", "\\1", basename(path))
        page_meta <- meta[[as.character(tl$devices[[as.integer(device)]])]]
        if (is.null(page_meta)) page_meta <- list()
        page_meta$width <- readBin(png[17:20], "integer", size = 4L, endian = "big")
        page_meta$height <- readBin(png[21:24], "integer", size = 4L, endian = "big")
        tl$send(list(type = "display", id = id,
                     data = list(`image/png` = jsonlite::base64_enc(png)), meta = page_meta))
      }
      unlink(path)
    }
    tl$devices <- integer()
    tl$titles <- list()
  }

  tl$traceback <- function(calls) {
    # The user's frames only: those under the driver's own .tl_eval and above the error handler.
    marks <- which(vapply(calls, function(cl) identical(cl[[1]], quote(.tl_eval)), logical(1)))
    if (length(marks)) calls <- calls[-seq_len(max(marks))]
    while (length(calls) && identical(calls[[1]][[1]], quote(eval))) calls <- calls[-1L]
    while (length(calls) && (identical(calls[[length(calls)]][[1]], quote(h)) ||
                             identical(calls[[length(calls)]][[1]], quote(.handleSimpleError)))) {
      calls <- calls[-length(calls)]
    }
    if (!length(calls)) return("")
    lines <- vapply(calls, function(cl) paste(deparse(cl, nlines = 1L), collapse = ""), character(1))
    paste0(sprintf("%d: %s", rev(seq_along(lines)), rev(lines)), collapse = "\n")
  }

  # The call a condition names, unless it is the driver's own eval (a stop() at the top of a cell).
  tl$user_call <- function(condition) {
    call <- conditionCall(condition)
    if (is.call(call) && identical(call[[1]], quote(eval))) NULL else call
  }

  tl$error <- function(e, calls) {
    call <- tl$user_call(e)
    head <- if (is.null(call)) "Error: " else paste0("Error in ", paste(deparse(call, nlines = 1L), collapse = ""), ": ")
    tb <- tl$traceback(calls)
    list(name = class(e)[[1]], value = conditionMessage(e),
         traceback = paste0(head, conditionMessage(e), if (nzchar(tb)) paste0("\nTraceback:\n", tb) else ""))
  }

  tl$show <- function(value, id) {
    if (inherits(value, "ggplot")) {
      print(value)  # drawn on a plot device: it comes back as a PNG with the other plots
      return(invisible())
    }
    text <- paste(utils::capture.output(print(value)), collapse = "\n")
    tl$send(list(type = "display", id = id, data = list(`text/plain` = tl$clip(text))))
  }

  tl$run <- function(command) {
    id <- command$id
    error <- NULL
    calls <- NULL
    exprs <- tryCatch(parse(text = command$code, keep.source = FALSE), error = function(e) e)
    if (inherits(exprs, "error")) {
      error <- list(name = "SyntaxError", value = conditionMessage(exprs), traceback = conditionMessage(exprs))
    } else {
      tl$send(list(type = "started", id = id))
      last <- NULL
      error <- tryCatch(withCallingHandlers({
        for (expr in exprs) last <- withVisible(.tl_eval(expr))
        if (!is.null(last) && last$visible) tl$show(last$value, id)
        NULL
      }, error = function(e) calls <<- sys.calls(),
         warning = function(w) {
           call <- tl$user_call(w)
           message("Warning", if (!is.null(call)) paste0(" in ", paste(deparse(call, nlines = 1L), collapse = "")),
                   ": ", conditionMessage(w))
           invokeRestart("muffleWarning")
         }),
      error = function(e) tl$error(e, calls),
      interrupt = function(e) list(name = "KeyboardInterrupt", value = "the run was interrupted", traceback = ""))
    }
    tryCatch(tl$flush_plots(id), error = function(e) message("threadlab: a plot could not be saved: ", conditionMessage(e)),
             interrupt = function(e) NULL)
    try(flush(stdout()), silent = TRUE)
    try(flush(stderr()), silent = TRUE)
    frame <- list(type = "done", id = id)
    if (!is.null(error)) frame$error <- error
    tl$send(frame)
  }

  tl$serve <- function() {
    tl$send(list(type = "ready", pid = Sys.getpid()))
    repeat {
      line <- NULL
      # A SIGINT that lands between runs (the supervisor's stop racing the run's end) is dropped; a line
      # being read when it lands is still taken (the interrupt fires after the assignment).
      tryCatch(suspendInterrupts(line <- readLines(tl$commands, n = 1L, warn = FALSE)), interrupt = function(e) NULL)
      if (is.null(line)) next
      if (!length(line)) quit(save = "no", status = 0L)
      command <- tryCatch(jsonlite::fromJSON(line, simplifyVector = FALSE), error = function(e) NULL,
                          interrupt = function(e) NULL)
      if (is.list(command) && identical(command$op, "run") && is.character(command$code)) {
        tryCatch(tl$run(command), interrupt = function(e) NULL)
      }
    }
  }
  tl$serve()
})
