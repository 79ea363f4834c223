import EdgeMotion
import Logging
import Messaging
import MotionCore
import Sensors
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension AgentRunner {
    // MARK: The main thread's turns: the initial broker wait, signals, the main loop

    /// How the initial wait for the broker ended.
    enum BrokerWait { case connected, timedOut, stopRequested(Int32) }

    /// Waits up to `timeout` seconds for the first connection while taking signals every 50 ms,
    /// so SIGTERM/SIGINT end the wait at once; a SIGHUP meanwhile is applied once sampling runs.
    func waitForBroker(_ client: MQTTClient, timeout: Double) -> BrokerWait {
        let deadline = MonotonicClock.nowNanos() + UInt64(timeout * 1e9)
        while true {
            if client.isConnected { return .connected }
            let now = MonotonicClock.nowNanos()
            if now >= deadline { return .timedOut }
            switch SignalWaiter.wait(timeout: min(0.05, Double(deadline - now) * 1e-9)) {
            case .terminate(let signo): return .stopRequested(signo)
            case .reload: reloadPending = true
            case let other?: handleSignal(other)
            case nil: break
            }
        }
    }

    /// SIGUSR1 (statistics now) and the signals taken only so they cannot end the process.
    func handleSignal(_ received: SignalWaiter.Received) {
        switch received {
        case .statistics:
            // Before the pipeline exists (the initial broker wait) there is nothing to count yet.
            log.notice("statistics requested (SIGUSR1)", ["status": statusLine()])
            statisticsRequested = true
        case .ignored(let signo):
            if loggedSignals.insert(signo).inserted {
                log.notice("signal ignored", ["signal": SignalWaiter.name(signo), "note": "logged once; SIGTERM stops, SIGHUP reloads, SIGUSR1 reports statistics"])
            }
        case .terminate, .reload, .wake: break
        }
    }

    func mainLoop(duration: Double?) -> String {
        let start = MonotonicClock.nowNanos()
        var nextStats = start + statsIntervalNanos
        var nextLatest = start + 1_000_000_000
        var ready = false
        var lastWatchdogSample: UInt64 = 0
        var lastWatchdogRetries: UInt64 = 0
        var nextWatchdog = start
        var nextDashboard = start
        waker.arm()
        var timeout = Self.fastTurnSeconds
        while true {
            if reloadPending || reloadRequested.exchange(false, ordering: .relaxed) {
                reloadPending = false
                reload()
                nextStats = 0
            }
            let received = SignalWaiter.wait(timeout: timeout)
            turns.add(1, ordering: .relaxed)
            waker.take()
            switch received {
            case .terminate(let signo):
                return signo == SIGINT ? "SIGINT" : "SIGTERM"
            case .reload:
                reload()
                nextStats = 0
            case let other?:
                handleSignal(other)
                if statisticsRequested {
                    statisticsRequested = false
                    nextStats = 0
                }
            case nil:
                break
            }
            let now = MonotonicClock.nowNanos()
            if let d = duration, Double(now - start) * 1e-9 >= d { return "duration reached" }
            if stopRequested.load(ordering: .relaxed) { return "stop requested" }
            if let lost = lostForGood { return lost }
            if pipeline?.end == .endOfStream { return Self.endOfRecording }

            commandHandler.handlePending(handleCommand)
            if let r = mountControl?.poll(configuration: configuration, now: now) { publishMountReply(r) }
            finishGyroCalibrationIfDue(now: now)
            handleDashboardCalibration(now: now)
            synthetic?.emitDue(now: now, into: outbox)
            auxiliary?.tick(now: now, into: outbox)
            failOverIfDue(now: now)

            // Non-nil: the main loop runs once a pipeline started.
            guard let stats = currentStatistics else { continue }
            if !ready, stats.samplesProcessed > 0, client.isConnected {
                ready = true
                notifier.notify("READY=1\nSTATUS=" + statusLine())
                log.info("ready: sampling and connected")
            }
            // Watchdog only while samples flow or a failed source is being re-opened (the retry loop
            // is progress too): a stuck pipeline gets restarted by systemd.
            if let interval = notifier.watchdogIntervalNanos, now >= nextWatchdog {
                nextWatchdog = now + interval / 3
                if (stats.lastSampleNanos != lastWatchdogSample && stats.samplesProcessed > 0) || stats.sourceRetries != lastWatchdogRetries {
                    lastWatchdogSample = stats.lastSampleNanos
                    lastWatchdogRetries = stats.sourceRetries
                    notifier.notify("WATCHDOG=1")
                }
            }
            let latestInterval = configuration.streams.latestInterval
            if latestInterval > 0, now >= nextLatest {
                nextLatest = now + UInt64(latestInterval * 1e9)
                latestSnapshots.withLock { $0 }?.publish(into: outbox)
            }
            announceSourceTransitions(stats: stats)
            if dashboard != nil, now >= nextDashboard {
                nextDashboard = now + 250_000_000
                updateDashboard(stats)
            }
            if now >= nextStats { announceClockStep() }
            if now >= nextStats {
                // Writes a full disk refused are retried here; `health` follows every change.
                activity?.store.retryPending()
                if storageProblems() != storageProblemsSeen { healthDirty.store(true, ordering: .relaxed) }
                if activityInputCode() != activityInputSeen { healthDirty.store(true, ordering: .relaxed) }
            }
            if healthReporter.isReporting, now >= nextStats || healthDirty.exchange(false, ordering: .relaxed) {
                if now >= nextStats {
                    nextStats = now + statsIntervalNanos
                    outbox.enqueueState(topic: topics.stats, payload: statsPayload(stats), qos: 0, retain: false)
                    notifier.notify("STATUS=" + statusLine())
                }
                publishHealth()
            }
            // Until the next deadline, or a wake (a command, a stop, reload or health change).
            var deadlines = [nextStats]
            if latestInterval > 0 { deadlines.append(nextLatest) }
            if notifier.watchdogIntervalNanos != nil { deadlines.append(nextWatchdog) }
            if let d = duration { deadlines.append(start + UInt64(d * 1e9)) }
            timeout = Self.turnTimeout(now: now, deadlines: deadlines, fast: needsFastTurns(ready: ready))
        }
    }

    /// The main loop's turn while something is polled rather than announced, s.
    static let fastTurnSeconds = 0.1
    /// The longest wait between turns when nothing is due, s.
    static let idleTurnSeconds = 1.0

    /// How long the main loop waits after the turn that began at `now` (monotonic ns), s: until
    /// the earliest deadline after `now`, at most `idleTurnSeconds` (`fastTurnSeconds` when
    /// `fast`), at least 1 ms. A deadline not after `now` was this turn's to handle (or does not
    /// apply, e.g. stats while `health` is off): it does not shorten the wait.
    static func turnTimeout(now: UInt64, deadlines: [UInt64], fast: Bool) -> Double {
        var wait = fast ? fastTurnSeconds : idleTurnSeconds
        for d in deadlines where d > now { wait = min(wait, Double(d - now) * 1e-9) }
        return max(wait, 0.001)
    }

    /// Whether the next turn must come within `fastTurnSeconds`: wakes do not reach the loop
    /// (`waker` not armed), or something is polled rather than announced — start-up before
    /// `READY`, the broker not connected (failover counts time), a failed source being
    /// re-opened, a reload pending, a mount being learned, a gyro calibration, the dashboard,
    /// synthetic events, auxiliary streams, or a replay (its end is noticed here).
    func needsFastTurns(ready: Bool) -> Bool {
        !waker.isArmed || !ready || !client.isConnected || sourceFailedAt != nil || reloadPending
            || mountControl?.isLearning == true || gyroCalibration != nil || dashboard != nil
            || synthetic != nil || auxiliary != nil || configuration.source.kind == .replay
    }
}
